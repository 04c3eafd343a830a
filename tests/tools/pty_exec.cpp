// Runs a program with the slave side of a fresh pseudo-terminal, in raw mode (no "\n" -> "\r\n",
// no flow control), as its stdout, and copies what the master side reads to our stdout.
//
//   pty_exec PROGRAM [ARG...]
// Exits with PROGRAM's status (128 + signal when it was killed by one).

#include <pty.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace {

[[noreturn]] void die(char const* what) {
  std::fprintf(stderr, "pty_exec: %s: %s\n", what, std::strerror(errno));
  std::exit(125);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: pty_exec PROGRAM [ARG...]\n");
    return 2;
  }
  termios raw{};
  cfmakeraw(&raw);
  int master = -1, slave = -1;
  if (::openpty(&master, &slave, nullptr, &raw, nullptr) != 0) die("openpty");
  pid_t const child = ::fork();
  if (child < 0) die("fork");
  if (child == 0) {
    ::close(master);
    if (::dup2(slave, 1) != 1) die("dup2");
    ::close(slave);
    ::execvp(argv[1], argv + 1);
    die(argv[1]);
  }
  ::close(slave);
  std::signal(SIGPIPE, SIG_IGN);
  std::vector<char> buf(1 << 16);
  bool downstream_gone = false;
  for (;;) {
    // Once every slave descriptor is closed, the master reads what is left, then EIO.
    ssize_t const n = ::read(master, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 && errno == EIO) break;
    if (n < 0) die("read");
    if (n == 0) break;
    for (ssize_t done = 0; done < n && !downstream_gone;) {
      ssize_t const w = ::write(1, buf.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EPIPE)
        downstream_gone = true;
      else if (w < 0)
        die("write");
      else
        done += w;
    }
    if (downstream_gone) break;
  }
  ::close(master);  // hangs up the slave: a writer still writing gets EIO
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) die("waitpid");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
