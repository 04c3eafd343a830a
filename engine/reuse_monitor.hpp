#pragma once
// --reuse auto: a background thread that keeps asking who reads our pipe (output/readers.hpp) and
// publishes the verdict: the known readers every 2 ms, the whole of /proc often while the pipeline
// settles (a shell's child becomes pv), then twice a second.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "output/readers.hpp"
#include "output/sink.hpp"

namespace fizzgen {

class reuse_monitor {
 public:
  /// Inspects the readers of the pipe on fd once now, then keeps re-inspecting in the background.
  /// `out` is the sink writing to fd: its slot count dates each inspection.
  reuse_monitor(int fd, sink const& out);
  ~reuse_monitor();
  reuse_monitor(reuse_monitor const&) = delete;
  reuse_monitor& operator=(reuse_monitor const&) = delete;

  /// The verdict as one word: odd = safe. It changes whenever the verdict flips, so a buffer
  /// emitted under state s may be rewritten in place only while the state is still s and s is odd.
  std::uint64_t state() const noexcept { return state_.load(std::memory_order_acquire); }
  static bool safe(std::uint64_t state) noexcept { return (state & 1) != 0; }

  /// True when an inspection that began once `slots` pipe slots had been emitted found the readers
  /// safe, and nothing unsafe was seen since: a buffer that had left the pipe by then was not
  /// forwarded into anything its readers still hold.
  bool vouches_for(std::uint64_t slots) const noexcept {
    return checked_slots_.load(std::memory_order_acquire) >= slots;  // pairs with publish()
  }

  std::string why() const;
  std::uint64_t inspections() const noexcept { return inspections_.load(std::memory_order_relaxed); }
  std::uint64_t flips() const noexcept { return state() >> 1; }

 private:
  void inspect();
  void publish(reader_verdict const& v, std::uint64_t slots_at_start);
  void loop(std::stop_token stop);

  int fd_;
  sink const& out_;
  std::atomic<std::uint64_t> checked_slots_{0};  ///< slots emitted when the last safe inspection began
  std::atomic<std::uint64_t> state_{0};
  std::atomic<std::uint64_t> inspections_{0};
  mutable std::mutex mutex_;
  std::condition_variable_any wake_;
  std::string why_;             ///< guarded by mutex_
  std::vector<pid_t> readers_;  ///< from the last full inspection; the monitor thread's own
  std::jthread thread_;
};

}  // namespace fizzgen
