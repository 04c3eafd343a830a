// The plainest reader: read(2) stdin, write(2) stdout, until end of input.
//
//   read_copy [-b BUFSIZE] [-s SLEEP_US] [-p FILE] [-i PIDFILE]
//     -b BUFSIZE  read size (default 65536)
//     -s SLEEP_US sleep after each read (a slow reader; default 0)
//     -p FILE     at the end, write F_GETPIPE_SZ of stdin (the size the writer was granted) to FILE
//     -i PIDFILE  write our pid to PIDFILE first (for tests that stop or signal the reader)

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
  std::fprintf(stderr, "read_copy: %s: %s\n", what, std::strerror(errno));
  std::exit(1);
}

bool write_text(char const* path, std::string const& text) {
  std::FILE* f = std::fopen(path, "w");
  if (f == nullptr) return false;
  std::fputs(text.c_str(), f);
  return std::fclose(f) == 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::size_t size = 65536;
  unsigned long pause = 0;
  char const* pipe_size_file = nullptr;
  int opt;
  while ((opt = ::getopt(argc, argv, "b:s:p:i:")) != -1) {
    switch (opt) {
      case 'b':
        size = std::strtoul(optarg, nullptr, 10);
        break;
      case 's':
        pause = std::strtoul(optarg, nullptr, 10);
        break;
      case 'p':
        pipe_size_file = optarg;
        break;
      case 'i':
        if (!write_text(optarg, std::to_string(::getpid()) + "\n")) die(optarg);
        break;
      default:
        return 2;
    }
  }
  if (size == 0) size = 1;
  std::vector<char> buf(size);
  for (;;) {
    ssize_t const n = ::read(0, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("read");
    if (n == 0) break;
    for (ssize_t done = 0; done < n;) {
      ssize_t const w = ::write(1, buf.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) die("write");
      done += w;
    }
    if (pause > 0) ::usleep(static_cast<useconds_t>(pause));
  }
  if (pipe_size_file != nullptr) {
    int const granted = ::fcntl(0, F_GETPIPE_SZ);
    if (!write_text(pipe_size_file, std::to_string(granted) + "\n")) die(pipe_size_file);
  }
  return 0;
}
