#pragma once
// Where bytes go. A sink takes buffers in order and hands them to the kernel the right way for
// what fd 1 is: vmsplice into a pipe, write(2) for everything else, or nothing at all (null).

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

namespace fizzgen {

enum class emit_status { ok, reader_gone, failed };

class sink {
 public:
  virtual ~sink() = default;

  /// Hands all of data to the output, in order. Called by one thread at a time.
  virtual emit_status emit(std::span<std::byte const> data) noexcept = 0;
  /// Hands over what the output takes now of the start of data, without waiting; the bytes taken
  /// (0 when it is full, and on an error, which the next emit() reports). Those bytes are out: the
  /// next emit() starts after them.
  virtual std::size_t offer(std::span<std::byte const> /*data*/) noexcept { return 0; }
  /// True when the kernel may still reference emitted pages after emit() returns (vmsplice):
  /// the caller must not write into them again before giving the buffer fresh pages.
  virtual bool shares_pages() const noexcept = 0;
  /// "vmsplice", "write", "null"...
  virtual std::string_view path() const noexcept = 0;
  /// Pipe capacity granted by the kernel at open, 0 when the output is not a pipe.
  virtual std::size_t pipe_size() const noexcept { return 0; }
  /// Pipe capacity now (a reader may have grown the pipe); safe to call from any thread.
  virtual std::size_t current_pipe_size() const noexcept { return pipe_size(); }
  /// Pipe slots (one per page or part of a page) filled by emit() so far; 0 unless vmsplice.
  /// Safe to call from any thread (it may lag the emitting thread).
  virtual std::uint64_t slots() const noexcept { return 0; }
  /// Slots known to have left the pipe: slots() is read first, then the pipe's capacity now, and
  /// every slot up to the difference was out when the capacity was read (the pipe holds no more
  /// than its capacity, the newest slots), whatever sizes the pipe had before. 0 when the
  /// capacity is unknown. A system call that takes the pipe's lock: not for a polling loop.
  virtual std::uint64_t slots_gone() const noexcept {
    std::uint64_t const emitted = slots();
    std::uint64_t const capacity = current_pipe_size() / 4096;
    return capacity == 0 || emitted < capacity ? 0 : emitted - capacity;
  }

  /// What failed, after emit() returned failed, as coreutils says it: the output, then the
  /// reason ("standard output: No space left on device").
  std::string const& error() const noexcept { return error_; }
  /// The call that failed, after emit() returned failed: "write", "vmsplice", "poll".
  std::string const& failed_call() const noexcept { return failed_call_; }

  /// Work for the emitting thread while the pipe is full and it would only wait for room (the
  /// reuse monitor's re-check): emit() calls it each time vmsplice first finds no room. It must
  /// be cheap when it has nothing to do, and must not emit.
  void while_full(std::function<void()> task) { while_full_ = std::move(task); }
  /// While `on`, a full pipe is polled far longer before sleeping (vmsplice with spinning; nothing
  /// elsewhere): for the lone worker while its helper fills ahead (engine/run.cpp). Any thread.
  virtual void poll_long(bool /*on*/) noexcept {}

 protected:
  /// EPIPE is reader_gone; anything else fails with error() naming output_name_ and err.
  emit_status fail(std::string_view call, int err);
  std::string output_name_ = "standard output";  ///< how error() names the output
  std::string error_;
  std::function<void()> while_full_;
  std::string failed_call_;
};

/// "standard output" for fd 1, "fd N" for any other: how a sink's error() names its output.
std::string output_name(int fd);

/// A sink that only counts (generation-only measurements).
std::unique_ptr<sink> make_null_sink();

/// The right sink for fd; a pipe is grown towards wanted_pipe_size, or to the largest size the
/// system allows below it (fs.pipe-max-size, per-user limits), never shrunk. Throws
/// std::runtime_error with a user-facing message when fd cannot be written at all (closed, opened
/// read-only). With `spin`, a full pipe is polled with SPLICE_F_NONBLOCK for a bounded time before
/// sleeping: worth it only when a core is free for it. With `copy`, a pipe gets write(2) too (each
/// emit its own write calls, as --write-size needs).
std::unique_ptr<sink> open_sink(int fd, std::size_t wanted_pipe_size = std::size_t{1} << 20, bool spin = false,
                                bool copy = false);

}  // namespace fizzgen
