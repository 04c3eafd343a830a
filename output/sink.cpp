#include "output/sink.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "output/probe.hpp"
#include "output/sys.hpp"

namespace fizzgen {

emit_status sink::fail(std::string_view call, int err) {
  if (err == EPIPE) return emit_status::reader_gone;
  failed_call_ = std::string(call);
  error_ = output_name_ + ": " + std::strerror(err);
  return emit_status::failed;
}

std::string output_name(int fd) { return fd == STDOUT_FILENO ? "standard output" : "fd " + std::to_string(fd); }

namespace {

/// fs.pipe-max-size: the largest pipe an unprivileged process may ask for; 0 when unknown.
std::size_t pipe_max_size() {
  std::ifstream in("/proc/sys/fs/pipe-max-size");
  std::size_t n = 0;
  return in >> n ? n : 0;
}

/// Grows fd's pipe towards `wanted`; returns the size it has then (0 when it is no pipe). Above
/// fs.pipe-max-size an unprivileged F_SETPIPE_SZ fails with EPERM, and so does one past the
/// per-user pipe page limits: each refusal asks again for the system's maximum, then for half as
/// much, down to the size the pipe already has.
std::size_t grow_pipe(int fd, std::size_t wanted) {
  int const current = sys::fcntl(fd, F_GETPIPE_SZ, 0);
  if (current < 0) return 0;
  std::size_t const max = pipe_max_size();
  for (std::size_t ask = wanted; ask > static_cast<std::size_t>(current);) {
    int const r = sys::fcntl(fd, F_SETPIPE_SZ, static_cast<int>(ask));
    if (r != -EPERM) break;  // granted, or refused for a reason a smaller size would not fix
    ask = max != 0 && ask > max ? max : ask / 2;
  }
  int const granted = sys::fcntl(fd, F_GETPIPE_SZ, 0);
  return granted > 0 ? static_cast<std::size_t>(granted) : 0;
}

class null_sink final : public sink {
 public:
  emit_status emit(std::span<std::byte const>) noexcept override { return emit_status::ok; }
  bool shares_pages() const noexcept override { return false; }
  std::string_view path() const noexcept override { return "null"; }
};

/// write(2): the kernel copies, so buffers are free as soon as emit() returns.
class write_sink final : public sink {
 public:
  explicit write_sink(int fd) : fd_(fd) { output_name_ = output_name(fd); }
  emit_status emit(std::span<std::byte const> data) noexcept override {
    while (!data.empty()) {
      ssize_t const n = sys::write(fd_, data.data(), data.size());
      if (n == -EAGAIN) {  // a non-blocking fd 1: wait for room instead of spinning
        if (int const r = sys::poll_out(fd_); r < 0) return fail("poll", -r);
        continue;
      }
      if (n < 0) return fail("write", static_cast<int>(-n));
      data = data.subspan(static_cast<std::size_t>(n));
    }
    return emit_status::ok;
  }
  bool shares_pages() const noexcept override { return false; }
  std::string_view path() const noexcept override { return "write"; }

 private:
  int fd_;
};

/// vmsplice(2): the pipe takes references to our pages instead of copying them.
class vmsplice_sink final : public sink {
 public:
  static constexpr std::uintptr_t kPage = 4096;
  /// How long a full pipe is polled before sleeping in poll(2), when spinning. A reader as fast
  /// as pv makes room within it: 16 GiB into pv -S found the pipe full 33 to 250 times a run, for
  /// 10-20 us mostly. A slower one is slept for (fizzgen check, 4 GB/s on one thread: full for
  /// 50 us to 1 ms at a time): polling all the way, the writer held a CPU as long as the stream
  /// lasted (2.2 CPU seconds for 8 GiB into check against 1.0) and two checking threads beside it
  /// ran slower than one. Not under poll_long(true) (kLongSpins).
  static constexpr std::chrono::microseconds kSpinTime{20};
  /// Polls between two looks at the clock.
  static constexpr int kSpinsPerLook = 8;
  /// Polls of a full pipe before sleeping under poll_long(true).
  static constexpr int kLongSpins = 1 << 16;

  vmsplice_sink(int fd, std::size_t pipe_size, bool spin, bool shares)
      : fd_(fd), pipe_size_(pipe_size), spin_(spin), shares_(shares) {
    output_name_ = output_name(fd);
  }

  emit_status emit(std::span<std::byte const> data) noexcept override {
    unsigned const flags = spin_ ? SPLICE_F_NONBLOCK : 0;
    int full = 0;  // consecutive EAGAINs
    std::chrono::steady_clock::time_point deadline;
    while (!data.empty()) {
      iovec iov{const_cast<std::byte*>(data.data()), data.size()};
      ssize_t const n = sys::vmsplice(fd_, &iov, 1, flags);
      if (n == -EAGAIN) {
        if (spin_ && ++full == 1) {
          if (while_full_) while_full_();  // the reader has a pipe's worth to drain
          deadline = std::chrono::steady_clock::now() + kSpinTime;
        }
        bool const more = long_.load(std::memory_order_relaxed)
                              ? full < kLongSpins
                              : full % kSpinsPerLook != 0 || std::chrono::steady_clock::now() < deadline;
        if (spin_ && more) {
          cpu_pause();
          continue;
        }
        full = 0;
        if (int const r = sys::poll_out(fd_); r < 0) return fail("poll", -r);
        continue;
      }
      if (n < 0) return fail("vmsplice", static_cast<int>(-n));
      full = 0;
      count_slots(data.data(), static_cast<std::size_t>(n));
      data = data.subspan(static_cast<std::size_t>(n));
    }
    return emit_status::ok;
  }
  std::size_t offer(std::span<std::byte const> data) noexcept override {
    if (data.empty()) return 0;
    iovec iov{const_cast<std::byte*>(data.data()), data.size()};
    ssize_t const n = sys::vmsplice(fd_, &iov, 1, SPLICE_F_NONBLOCK);
    if (n <= 0) return 0;
    count_slots(data.data(), static_cast<std::size_t>(n));
    return static_cast<std::size_t>(n);
  }
  bool shares_pages() const noexcept override { return shares_; }
  void poll_long(bool on) noexcept override { long_.store(on, std::memory_order_relaxed); }
  std::string_view path() const noexcept override { return shares_ ? "vmsplice" : "vmsplice (kernel copies)"; }
  std::size_t pipe_size() const noexcept override { return pipe_size_; }
  std::size_t current_pipe_size() const noexcept override {
    int const now = sys::fcntl(fd_, F_GETPIPE_SZ, 0);
    return now > 0 ? std::max(pipe_size_, static_cast<std::size_t>(now)) : pipe_size_;
  }
  std::uint64_t slots() const noexcept override { return slots_.load(std::memory_order_relaxed); }

 private:
  /// The pipe takes one slot per page, or part of a page, of what was spliced.
  void count_slots(std::byte const* data, std::size_t n) noexcept {
    auto const first = reinterpret_cast<std::uintptr_t>(data);
    auto const last = first + static_cast<std::uintptr_t>(n) - 1;
    // Written by the emitting thread only; read by the reuse monitor from its own thread.
    slots_.store(slots_.load(std::memory_order_relaxed) + (last / kPage - first / kPage + 1),
                 std::memory_order_relaxed);
  }

  static void cpu_pause() noexcept {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  }

  int fd_;
  std::size_t pipe_size_;
  bool spin_;
  bool shares_;
  std::atomic<std::uint64_t> slots_{0};
  std::atomic<bool> long_{false};  ///< poll_long
};

}  // namespace

std::unique_ptr<sink> make_null_sink() { return std::make_unique<null_sink>(); }

std::unique_ptr<sink> open_sink(int fd, std::size_t wanted_pipe_size, bool spin, bool copy) {
  int const flags = sys::fcntl(fd, F_GETFL, 0);
  if (flags < 0) throw std::runtime_error("standard output is closed");
  // A read end on fd 1 would make vmsplice silently read into our buffers.
  if ((flags & O_ACCMODE) == O_RDONLY) throw std::runtime_error("standard output is not open for writing");
  struct stat st {};
  if (::fstat(fd, &st) != 0) throw std::runtime_error(std::string("fstat: ") + std::strerror(errno));
  if (S_ISFIFO(st.st_mode)) {
    // Size it once, then live with what was granted: resizing mid-run would reorder slot accounting.
    std::size_t const granted = grow_pipe(fd, wanted_pipe_size);
    vmsplice_kind const kind = copy ? vmsplice_kind::broken : probe_vmsplice();
    if (kind != vmsplice_kind::broken)
      return std::make_unique<vmsplice_sink>(fd, granted, spin, kind == vmsplice_kind::shares);
  }
  return std::make_unique<write_sink>(fd);
}

}  // namespace fizzgen
