#pragma once
// Waiting for a value: spin a bounded number of times with a pause (cheap when the other side is
// about to publish on another core), then sleep in the kernel (futex) so that more waiting threads
// than cores never starve the thread they wait for.

#include <atomic>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace fizzgen {

inline void cpu_relax() noexcept {
#if defined(__x86_64__) || defined(__i386__)
  _mm_pause();
#endif
}

class spin_policy {
 public:
  explicit spin_policy(std::uint32_t spins = 1u << 14) noexcept : spins_(spins) {}

  /// Waits until pred(word.load(acquire)) holds; returns how many times it had to look again.
  /// The publisher must call word.notify_all() after each store.
  template <class Pred>
  std::uint64_t wait(std::atomic<std::uint32_t> const& word, Pred pred) const noexcept {
    std::uint64_t retries = 0;
    for (;;) {
      std::uint32_t const v = word.load(std::memory_order_acquire);  // pairs with the publisher's release store
      if (pred(v)) return retries;
      ++retries;
      if (retries < spins_)
        cpu_relax();
      else
        word.wait(v, std::memory_order_acquire);  // futex sleep until the value changes
    }
  }

 private:
  std::uint32_t spins_;
};

}  // namespace fizzgen
