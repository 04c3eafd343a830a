// A reader that duplicates pages instead of copying them: tee(2) stdin -> stdout, then splice the
// same amount stdin -> /dev/null to consume it. The pages stdout receives are the writer's own.
//
//   tee_forwarder [-c CHUNK] [-s SLEEP_US] [-g SIZE]    (stdin and stdout must be pipes)
//     -c CHUNK     bytes per tee (default 65536)
//     -s SLEEP_US  sleep between chunks (default 0)
//     -g SIZE      first grow the output pipe to SIZE bytes (F_SETPIPE_SZ)

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

[[noreturn]] void die(char const* what) {
  if (errno == EPIPE) {
    std::signal(SIGPIPE, SIG_DFL);
    std::raise(SIGPIPE);
    _exit(141);
  }
  std::fprintf(stderr, "tee_forwarder: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t chunk = 65536;
  unsigned long pause = 0;
  int grow = 0;
  int opt;
  while ((opt = ::getopt(argc, argv, "c:s:g:")) != -1) {
    switch (opt) {
      case 'c':
        chunk = std::strtoul(optarg, nullptr, 10);
        break;
      case 's':
        pause = std::strtoul(optarg, nullptr, 10);
        break;
      case 'g':
        grow = static_cast<int>(std::strtoul(optarg, nullptr, 10));
        break;
      default:
        return 2;
    }
  }
  if (chunk == 0) chunk = 1;
  if (grow > 0 && ::fcntl(1, F_SETPIPE_SZ, grow) < 0) die("F_SETPIPE_SZ on stdout");
  int const devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  if (devnull < 0) die("/dev/null");
  for (;;) {
    ssize_t const n = ::tee(0, 1, chunk, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("tee");
    if (n == 0) return 0;  // every writer of stdin is gone and it is empty
    for (auto left = static_cast<std::size_t>(n); left > 0;) {
      ssize_t const m = ::splice(0, nullptr, devnull, nullptr, left, SPLICE_F_MOVE);
      if (m < 0 && errno == EINTR) continue;
      if (m <= 0) die("splice to /dev/null");
      left -= static_cast<std::size_t>(m);
    }
    if (pause > 0) ::usleep(static_cast<useconds_t>(pause));
  }
}
