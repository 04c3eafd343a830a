// A reader that forwards pages instead of copying them: splice(2) stdin -> stdout in small chunks,
// sleeping between them, the way pv does by default but slower, so that pages of the writer sit in
// the next pipe for a while. With -p, the data goes through private pipes of its own created only
// after the first -r bytes were read with read(2), so /proc shows a plain reader at first.
//
//   splice_forwarder [-c CHUNK] [-s SLEEP_US] [-o FD] [-r BYTES] [-p] [-n PIPES] [-x BYTES]
//                    [-w SLEEP_US] [-d SLEEP_US] [-g SIZE]
//     -c CHUNK     bytes per splice (default 65536)
//     -s SLEEP_US  sleep between chunks (default 0)
//     -o FD        forward into FD instead of 1
//     -r BYTES     copy the first BYTES with read/write before splicing (default 0)
//     -p           splice through private pipes (1 MiB each when granted), created after -r bytes:
//                  stdin -> each private pipe in turn until it holds -x bytes, sleep -w µs, then
//                  all of them -> output, in order
//     -n PIPES     how many private pipes (default 1)
//     -x BYTES     how much each private pipe takes before they are drained (default, and at
//                  most, half its size)
//     -w SLEEP_US  how long data sits in the private pipes each round (default 20000)
//     -d SLEEP_US  pause after the -r bytes, before splicing starts (default 0)
//     -g SIZE      first grow the output pipe to SIZE bytes (F_SETPIPE_SZ), so that more of the
//                  writer's pages can wait there when the next reader is slower
// Exits 0 at end of input, 1 on errors (one line on stderr); EPIPE downstream exits quietly (141).

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(char const* what) {
  if (errno == EPIPE) {
    std::signal(SIGPIPE, SIG_DFL);
    std::raise(SIGPIPE);
    _exit(141);
  }
  std::fprintf(stderr, "splice_forwarder: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

unsigned long number(char const* s) {
  char* end = nullptr;
  unsigned long const v = std::strtoul(s, &end, 10);
  if (end == s || *end != '\0') {
    std::fprintf(stderr, "splice_forwarder: bad number '%s'\n", s);
    std::exit(2);
  }
  return v;
}

void sleep_us(unsigned long us) {
  if (us > 0) ::usleep(static_cast<useconds_t>(us));
}

/// Moves exactly n bytes from a pipe to out with splice; false at end of input.
bool splice_exactly(int in, int out, std::size_t n) {
  while (n > 0) {
    ssize_t const r = ::splice(in, nullptr, out, nullptr, n, SPLICE_F_MOVE);
    if (r < 0) {
      if (errno == EINTR) continue;
      die("splice");
    }
    if (r == 0) return false;
    n -= static_cast<std::size_t>(r);
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t chunk = 65536, read_first = 0, hold = 512 * 1024;
  unsigned long pause = 0, wait_in_pipe = 20000, delay = 0;
  int out = 1;
  int grow = 0;
  bool private_pipe = false;
  unsigned n_pipes = 1;
  int opt;
  while ((opt = ::getopt(argc, argv, "c:s:o:r:pn:w:x:d:g:")) != -1) {
    switch (opt) {
      case 'c':
        chunk = number(optarg);
        break;
      case 's':
        pause = number(optarg);
        break;
      case 'o':
        out = static_cast<int>(number(optarg));
        break;
      case 'r':
        read_first = number(optarg);
        break;
      case 'p':
        private_pipe = true;
        break;
      case 'n':
        n_pipes = static_cast<unsigned>(number(optarg));
        break;
      case 'w':
        wait_in_pipe = number(optarg);
        break;
      case 'x':
        hold = number(optarg);
        break;
      case 'd':
        delay = number(optarg);
        break;
      case 'g':
        grow = static_cast<int>(number(optarg));
        break;
      default:
        return 2;
    }
  }
  if (chunk == 0) chunk = 1;
  if (n_pipes == 0) n_pipes = 1;
  if (grow > 0 && ::fcntl(out, F_SETPIPE_SZ, grow) < 0) die("F_SETPIPE_SZ on the output");

  // Phase 1: an honest reader that copies.
  std::vector<char> buf(65536);
  while (read_first > 0) {
    ssize_t const n = ::read(0, buf.data(), std::min(buf.size(), read_first));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("read");
    if (n == 0) return 0;
    for (ssize_t done = 0; done < n;) {
      ssize_t const w = ::write(out, buf.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) die("write");
      done += w;
    }
    read_first -= static_cast<std::size_t>(n);
  }
  sleep_us(delay);

  if (!private_pipe) {
    for (;;) {
      ssize_t const n = ::splice(0, nullptr, out, nullptr, chunk, SPLICE_F_MOVE);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) die("splice");
      if (n == 0) return 0;
      sleep_us(pause);
    }
  }

  // Phase 2: pages go into pipes of our own and wait there before they are passed on.
  struct held_pipe {
    int r, w;
    std::size_t held;
  };
  std::vector<held_pipe> pipes;
  for (unsigned i = 0; i < n_pipes; ++i) {
    int p[2];
    if (::pipe(p) != 0) die("pipe");
    ::fcntl(p[1], F_SETPIPE_SZ, 1 << 20);  // keep whatever is granted
    int const cap = ::fcntl(p[1], F_GETPIPE_SZ);
    // Spliced pages may be partly filled, so a pipe may run out of slots before it holds `cap` bytes.
    if (cap > 0 && hold > static_cast<std::size_t>(cap) / 2) hold = static_cast<std::size_t>(cap) / 2;
    pipes.push_back({p[0], p[1], 0});
  }
  for (;;) {
    bool eof = false;
    for (held_pipe& hp : pipes) {
      hp.held = 0;
      while (!eof && hp.held < hold) {
        // Non-blocking: EAGAIN means this pipe is out of slots or stdin is empty for now; move on
        // with what is held, or wait a little when nothing is.
        ssize_t const n =
            ::splice(0, nullptr, hp.w, nullptr, std::min(chunk, hold - hp.held), SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && errno == EAGAIN && hp.held > 0) break;
        if (n < 0 && errno == EAGAIN) {
          ::usleep(100);
          continue;
        }
        if (n < 0) die("splice");
        if (n == 0) eof = true;
        hp.held += static_cast<std::size_t>(n);
      }
    }
    sleep_us(wait_in_pipe);
    for (held_pipe const& hp : pipes) {
      if (hp.held > 0 && !splice_exactly(hp.r, out, hp.held)) {
        errno = EIO;
        die("private pipe");
      }
    }
    if (eof) return 0;
    sleep_us(pause);
  }
}
