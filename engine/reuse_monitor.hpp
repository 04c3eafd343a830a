#pragma once
// --reuse auto: a background thread that keeps asking who reads our pipe (output/readers.hpp) and
// publishes the verdict. Often at first, while the pipeline settles (a shell's child becomes pv),
// then less often.

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

namespace fizzgen {

class reuse_monitor {
 public:
  /// Inspects the readers of the pipe on fd once now, then keeps re-inspecting in the background.
  explicit reuse_monitor(int fd);
  ~reuse_monitor();
  reuse_monitor(reuse_monitor const&) = delete;
  reuse_monitor& operator=(reuse_monitor const&) = delete;

  /// The verdict as one word: odd = safe. It changes whenever the verdict flips, so a buffer
  /// emitted under state s may be rewritten in place only while the state is still s and s is odd.
  std::uint64_t state() const noexcept { return state_.load(std::memory_order_acquire); }
  static bool safe(std::uint64_t state) noexcept { return (state & 1) != 0; }

  std::string why() const;
  std::uint64_t inspections() const noexcept { return inspections_.load(std::memory_order_relaxed); }
  std::uint64_t flips() const noexcept { return state() >> 1; }

 private:
  void inspect();
  void loop(std::stop_token stop);

  int fd_;
  std::atomic<std::uint64_t> state_{0};
  std::atomic<std::uint64_t> inspections_{0};
  mutable std::mutex mutex_;
  std::condition_variable_any wake_;
  std::string why_;  ///< guarded by mutex_
  std::jthread thread_;
};

}  // namespace fizzgen
