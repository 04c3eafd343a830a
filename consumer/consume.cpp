#include "consumer/consume.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "output/sys.hpp"

namespace fizzgen::consumer {
namespace {

using clock_type = std::chrono::steady_clock;
/// splice moves at most what the pipe holds; asking for more costs nothing.
constexpr std::size_t kSpliceMax = std::size_t{1} << 30;

/// A clock that starts at the first byte, so that a slow start of the producer does not count.
struct first_byte_clock {
  clock_type::time_point start{};
  bool started = false;
  void tick() {
    if (!started) {
      start = clock_type::now();
      started = true;
    }
  }
  double seconds() const { return started ? std::chrono::duration<double>(clock_type::now() - start).count() : 0; }
};

/// As coreutils words a failed read: the input, then the reason ("standard input: Is a directory").
std::string errno_text(int fd, int err) {
  return (fd == STDIN_FILENO ? std::string("standard input") : "fd " + std::to_string(fd)) + ": " + std::strerror(err);
}

/// Adds n bytes to the --progress counter, if there is one. Relaxed: the display only polls it.
void count(std::atomic<std::uint64_t>* progress, ssize_t n) noexcept {
  if (progress != nullptr) progress->fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
}

/// read(2) until the end; returns "" or the error.
std::string read_all(int fd, std::size_t block_size, report& r, first_byte_clock& clock,
                     std::atomic<std::uint64_t>* progress) {
  // Page-aligned, so the kernel copies into whole pages.
  std::unique_ptr<char, decltype(&std::free)> buf(static_cast<char*>(std::aligned_alloc(4096, block_size)), &std::free);
  if (!buf) return "cannot allocate the read buffer";
  for (;;) {
    ssize_t const n = sys::read(fd, buf.get(), block_size);
    if (n < 0) return errno_text(fd, static_cast<int>(-n));
    if (n == 0) return "";
    clock.tick();
    r.bytes += static_cast<std::uint64_t>(n);
    count(progress, n);
  }
}

}  // namespace

report consume(int fd, bool use_splice, std::size_t block_size, std::FILE* note, std::atomic<std::uint64_t>* progress) {
  report r;
  first_byte_clock clock;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    r.method = use_splice ? "splice" : "read";
    r.error = errno == EBADF ? "standard input is closed" : errno_text(fd, errno);
    return r;
  }
  if (use_splice && !S_ISFIFO(st.st_mode)) {
    if (note) std::fprintf(note, "fizzgen sink: standard input is not a pipe: reading it with read(2)\n");
    use_splice = false;
  }
  int devnull = -1;
  if (use_splice) {
    devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull < 0) {
      if (note)
        std::fprintf(note, "fizzgen sink: cannot open /dev/null (%s): reading with read(2)\n", std::strerror(errno));
      use_splice = false;
    }
  }
  if (use_splice) {
    r.method = "splice";
    for (;;) {
      ssize_t const n = sys::splice(fd, nullptr, devnull, nullptr, kSpliceMax, SPLICE_F_MOVE);
      if (n == -EINVAL && r.bytes == 0) {
        // This kernel or this pipe refuses splice: read instead.
        if (note)
          std::fprintf(note, "fizzgen sink: splice refused (%s): reading with read(2)\n", std::strerror(EINVAL));
        use_splice = false;
        break;
      }
      if (n < 0) {
        r.error = errno_text(fd, static_cast<int>(-n));
        break;
      }
      if (n == 0) break;
      clock.tick();
      r.bytes += static_cast<std::uint64_t>(n);
      count(progress, n);
    }
    ::close(devnull);
  }
  if (!use_splice) {
    r.method = "read";
    r.error = read_all(fd, block_size, r, clock, progress);
  }
  r.seconds = clock.seconds();
  return r;
}

}  // namespace fizzgen::consumer
