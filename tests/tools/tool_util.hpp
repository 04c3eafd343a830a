#pragma once
// What the test tools added for the reuse holes share: dying with errno's reason, reading a
// number flag. Each tool defines kToolName for its messages, and kQuietOnEpipe: true when a
// reader that went away should end it as SIGPIPE would (141), without a message.

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

extern char const* const kToolName;
extern bool const kQuietOnEpipe;

/// Prints "NAME: WHAT: strerror(errno)" and exits 1 (or, for EPIPE where kQuietOnEpipe, ends as
/// SIGPIPE would).
[[noreturn]] inline void die(char const* what) {
  if (kQuietOnEpipe && errno == EPIPE) {
    std::signal(SIGPIPE, SIG_DFL);
    std::raise(SIGPIPE);
    _exit(141);
  }
  std::fprintf(stderr, "%s: %s: %s\n", kToolName, what, std::strerror(errno));
  std::exit(1);
}

/// A decimal flag value; exits 2 with a message when malformed.
inline unsigned long number(char const* s) {
  char* end = nullptr;
  unsigned long const v = std::strtoul(s, &end, 10);
  if (end == s || *end != '\0') {
    std::fprintf(stderr, "%s: bad number '%s'\n", kToolName, s);
    std::exit(2);
  }
  return v;
}
