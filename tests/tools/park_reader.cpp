// A reader that looks plain to /proc (it read(2)s, holds nothing but its stdin, stdout and stderr)
// but parks part of the stream in a pipe of its own first: the pages spliced there are still the
// writer's while it goes on with the rest. Its stdout receives the whole stream, in order.
//
//   park_reader -n BYTES [-r BYTES] [-d SLEEP_US] [-f]    (stdin a pipe, stdout a regular file)
//     -r BYTES     first read(2) BYTES and write them out (default 0)
//     -d SLEEP_US  then sleep (default 0), so that the writer fills the pipe and trusts us
//     -n BYTES     then splice BYTES of stdin into a pipe created there and then (grown to hold
//                  them), and close its write end: only its read end stays, holding the pages
//     -f           the parking is done by a child forked just before: it inherits stdin, creates
//                  its pipe after the fork, parks, closes stdin and waits; the parent only reads
// Then the rest of stdin is read(2) to the end of input and written after the parked bytes'
// place; at the end the parked bytes are read back from the park pipe (by the child with -f) and
// written into their place. Exits 0, 1 on errors (one line on stderr).

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <vector>

#include "tool_util.hpp"

char const* const kToolName = "park_reader";
bool const kQuietOnEpipe = false;

namespace {

/// Writes n bytes at offset `at` of stdout.
void put(char const* data, std::size_t n, off_t at) {
  while (n > 0) {
    ssize_t const w = ::pwrite(1, data, n, at);
    if (w < 0 && errno == EINTR) continue;
    if (w < 0) die("pwrite to stdout");
    data += w;
    n -= static_cast<std::size_t>(w);
    at += w;
  }
}

/// read(2)s from fd until `limit` bytes (or the end), writing them to stdout from offset `at` on;
/// the bytes read.
std::size_t copy_out(int fd, std::size_t limit, off_t at) {
  std::vector<char> buf(65536);
  std::size_t done = 0;
  while (done < limit) {
    ssize_t const n = ::read(fd, buf.data(), std::min(buf.size(), limit - done));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("read");
    if (n == 0) break;
    put(buf.data(), static_cast<std::size_t>(n), at + static_cast<off_t>(done));
    done += static_cast<std::size_t>(n);
  }
  return done;
}

/// Splices n bytes of stdin into a new pipe, closes its write end; the read end.
int park(std::size_t n) {
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) die("pipe");
  // Room for the bytes even when the spliced pages are partly filled.
  if (::fcntl(p[1], F_SETPIPE_SZ, static_cast<int>(std::max<std::size_t>(4 * n, 1 << 20))) < 0) die("F_SETPIPE_SZ");
  for (std::size_t left = n; left > 0;) {
    ssize_t const r = ::splice(0, nullptr, p[1], nullptr, left, SPLICE_F_MOVE);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) die("splice into the park pipe");
    if (r == 0) {
      errno = EIO;
      die("end of input before the park was full");
    }
    left -= static_cast<std::size_t>(r);
  }
  ::close(p[1]);
  return p[0];
}

/// Waits for sig (blocked by the caller) for up to 30 s.
void await(int sig) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, sig);
  timespec const limit{30, 0};
  for (;;) {
    int const r = ::sigtimedwait(&set, nullptr, &limit);
    if (r == sig) return;
    if (r < 0 && errno == EINTR) continue;
    die("waiting for a signal");
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t first = 0, parked = 0;
  unsigned long pause = 0;
  bool forked = false;
  int opt;
  while ((opt = ::getopt(argc, argv, "r:d:n:f")) != -1) {
    switch (opt) {
      case 'r':
        first = number(optarg);
        break;
      case 'd':
        pause = number(optarg);
        break;
      case 'n':
        parked = number(optarg);
        break;
      case 'f':
        forked = true;
        break;
      default:
        return 2;
    }
  }
  if (parked == 0) {
    std::fprintf(stderr, "usage: park_reader -n BYTES [-r BYTES] [-d SLEEP_US] [-f]\n");
    return 2;
  }
  if (copy_out(0, first, 0) != first) {
    errno = EIO;
    die("end of input in the first bytes");
  }
  if (pause > 0) ::usleep(static_cast<useconds_t>(pause));
  auto const park_at = static_cast<off_t>(first), rest_at = static_cast<off_t>(first + parked);

  if (!forked) {
    int const held = park(parked);
    copy_out(0, ~std::size_t{0}, rest_at);
    if (copy_out(held, parked, park_at) != parked) die("reading the park pipe back");
    return 0;
  }

  // -f: SIGUSR2 child -> parent "parked", SIGUSR1 parent -> child "write them out".
  sigset_t both;
  sigemptyset(&both);
  sigaddset(&both, SIGUSR1);
  sigaddset(&both, SIGUSR2);
  if (::sigprocmask(SIG_BLOCK, &both, nullptr) != 0) die("sigprocmask");
  pid_t const parent = ::getpid();
  pid_t const child = ::fork();
  if (child < 0) die("fork");
  if (child == 0) {
    int const held = park(parked);
    ::close(0);
    if (::kill(parent, SIGUSR2) != 0) die("kill");
    await(SIGUSR1);
    if (copy_out(held, parked, park_at) != parked) die("reading the park pipe back");
    return 0;
  }
  await(SIGUSR2);
  copy_out(0, ~std::size_t{0}, rest_at);
  if (::kill(child, SIGUSR1) != 0) die("kill");
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) die("waitpid");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
