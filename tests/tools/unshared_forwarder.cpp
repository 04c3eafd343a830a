// A forwarder that /proc/PID/fd does not show: a thread calls unshare(CLONE_FILES), so it gets a
// descriptor table of its own, creates pipes in it and forwards stdin -> those pipes -> stdout
// with splice(2), the pages waiting in its pipes a while each round. Once the thread has its
// table, the main thread closes its own stdout: /proc/PID/fd (the main thread's table) then shows
// only stdin and stderr, a reader with nothing to forward into.
//
//   unshared_forwarder [-n PIPES] [-x BYTES] [-w SLEEP_US] [-c CHUNK]   (stdin a pipe)
//     -n PIPES     how many pipes of its own, 1 MiB each when granted (default 4)
//     -x BYTES     how much each takes per round (default, and at most, half its size)
//     -w SLEEP_US  how long the pages wait in them each round (default 50000)
//     -c CHUNK     bytes per splice (default 65536)
// Exits 0 at end of input, 1 on errors (one line on stderr); EPIPE downstream exits quietly (141).

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

#include "tool_util.hpp"

char const* const kToolName = "unshared_forwarder";
bool const kQuietOnEpipe = true;

namespace {

struct options {
  unsigned pipes = 4;
  std::size_t hold = 512 * 1024, chunk = 65536;
  unsigned long wait_us = 50000;
};

std::atomic<bool> unshared{false};

/// The thread: its own descriptor table, its own pipes, the forwarding.
void forward(options o) {
  if (::unshare(CLONE_FILES) != 0) die("unshare(CLONE_FILES)");
  unshared.store(true);
  unshared.notify_one();
  struct held_pipe {
    int r, w;
    std::size_t held;
  };
  std::vector<held_pipe> pipes;
  for (unsigned i = 0; i < o.pipes; ++i) {
    int p[2];
    if (::pipe2(p, O_CLOEXEC) != 0) die("pipe");
    ::fcntl(p[1], F_SETPIPE_SZ, 1 << 20);  // whatever is granted
    int const cap = ::fcntl(p[1], F_GETPIPE_SZ);
    // Spliced pages may be partly filled: a pipe may run out of slots before it holds cap bytes.
    if (cap > 0) o.hold = std::min(o.hold, static_cast<std::size_t>(cap) / 2);
    pipes.push_back({p[0], p[1], 0});
  }
  for (bool eof = false; !eof;) {
    for (held_pipe& hp : pipes) {
      hp.held = 0;
      while (!eof && hp.held < o.hold) {
        // Non-blocking: EAGAIN is a pipe out of slots (move on with what it holds) or no input yet.
        ssize_t const n =
            ::splice(0, nullptr, hp.w, nullptr, std::min(o.chunk, o.hold - hp.held), SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN && hp.held > 0) break;
        if (n < 0 && errno == EAGAIN) {
          ::usleep(100);
          continue;
        }
        if (n < 0) die("splice from stdin");
        if (n == 0) eof = true;
        hp.held += static_cast<std::size_t>(n);
      }
    }
    ::usleep(static_cast<useconds_t>(o.wait_us));
    for (held_pipe const& hp : pipes) {
      for (std::size_t left = hp.held; left > 0;) {
        ssize_t const n = ::splice(hp.r, nullptr, 1, nullptr, left, SPLICE_F_MOVE);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) die("splice to stdout");
        if (n == 0) {
          errno = EIO;
          die("own pipe");
        }
        left -= static_cast<std::size_t>(n);
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  int opt;
  while ((opt = ::getopt(argc, argv, "n:x:w:c:")) != -1) {
    switch (opt) {
      case 'n':
        o.pipes = std::max(1u, static_cast<unsigned>(number(optarg)));
        break;
      case 'x':
        o.hold = std::max<std::size_t>(1, number(optarg));
        break;
      case 'w':
        o.wait_us = number(optarg);
        break;
      case 'c':
        o.chunk = std::max<std::size_t>(1, number(optarg));
        break;
      default:
        return 2;
    }
  }
  std::thread t(forward, o);
  unshared.wait(false);
  ::close(1);  // the thread keeps its copy
  t.join();
  return 0;
}
