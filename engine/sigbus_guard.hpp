#pragma once
// A mapped input file that someone truncates while it is read makes the kernel send SIGBUS for
// every page past the new end, and SIGBUS kills the process. While a guard is armed over a
// mapping, such a fault does not: the handler maps zero pages over the rest of the range (the
// faulting load then reads zeros), records the cut and returns. Whoever reads the mapping checks
// truncated() before trusting what it produced, and fails with a clear error instead.

#include <cstddef>

namespace fizzgen {

class sigbus_guard {
 public:
  sigbus_guard() = default;
  ~sigbus_guard() { disarm(); }
  sigbus_guard(sigbus_guard const&) = delete;
  sigbus_guard& operator=(sigbus_guard const&) = delete;

  /// Guards the mapping [base, base + length) (base page-aligned). False when another guard is
  /// armed in this process or the handler cannot be installed: then the caller must not read a
  /// file mapping that may shrink.
  bool arm(void const* base, std::size_t length) noexcept;
  /// Restores the previous SIGBUS disposition. Call before unmapping the range.
  void disarm() noexcept;
  /// True once a read of the guarded range faulted: the file was cut short while it was read,
  /// and the bytes read from the fault on are zeros.
  bool truncated() const noexcept;

 private:
  bool armed_ = false;
};

}  // namespace fizzgen
