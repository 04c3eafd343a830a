#pragma once
// SIGINT, SIGTERM and SIGHUP during a run: stop the workers at the next chunk, print the
// statistics asked for, then die of the same signal (so the shell sees 128+N). If the run cannot
// stop promptly (a worker blocked on a reader that was stopped), the signal's default action ends
// the process after a short grace period instead.

#include <atomic>
#include <condition_variable>
#include <mutex>
#include <stop_token>
#include <thread>

namespace fizzgen {

class signal_guard {
 public:
  /// Blocks the signals in this thread (and so in every thread started after it) and starts a
  /// thread that waits for them.
  signal_guard();
  /// Stops waiting and unblocks the signals again.
  ~signal_guard();
  signal_guard(signal_guard const&) = delete;
  signal_guard& operator=(signal_guard const&) = delete;

  /// Stop requested when a signal arrives: pass it to the engine.
  std::stop_token token() const noexcept { return source_.get_token(); }
  /// The signal received, 0 if none.
  int received() const noexcept { return received_.load(std::memory_order_acquire); }
  /// Call when the run is over: if a signal arrived, ends the process with it.
  void finish() noexcept;

 private:
  void wait_loop(std::stop_token stop);

  std::stop_source source_;
  std::atomic<int> received_{0};
  std::mutex mutex_;
  std::condition_variable done_cv_;
  bool done_ = false;  ///< guarded by mutex_
  std::jthread thread_;
};

}  // namespace fizzgen
