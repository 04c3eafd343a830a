#pragma once
// What the AVX-512 VBMI kernels that store only whole aligned 64-byte lines share: the classic
// stream's wide blocks (fizzbuzz_avx512vbmi.cpp) and the stream in Morse
// (morse_fizzbuzz_avx512vbmi.cpp). Included by those two files only, which are compiled with
// the flags it needs; an anonymous namespace, as the other per-arch headers.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>
#include <utility>

namespace fizzgen {
namespace {

/// Blocks of `block_bytes` each (never a multiple of 64), one after another from `out`, stored as
/// the output's aligned 64-byte lines: the line that holds a block's byte `from` (from < 0: the
/// line that starts in the block before) is `window(from)`, the 64 bytes of the output from the
/// block's byte `from` on. The bytes of the first line before `out` are masked off once; the last
/// block's last line may run up to 63 bytes past the end (the caller's slack).
class aligned_lines {
 public:
  aligned_lines(char* out, std::size_t block_bytes) noexcept
      : end_(out), block_bytes_(block_bytes), at_((0 - reinterpret_cast<std::uintptr_t>(out)) & 63) {
    first_ = at_ != 0 ? ~std::uint64_t{0} << (64 - at_) : 0;
  }

  /// Stores the lines of the next block that start in it (and, for the first block, the part of
  /// the line before it from `out` on). W is block_bytes / 64: the lines that start in a block at
  /// every phase, stored in a loop of a fixed count, so that the branch is predicted; the one
  /// more that only some phases have is stored after it.
  template <std::size_t W, class Window>
  void block(Window window) noexcept {
    if (first_ != 0) [[unlikely]] {
      _mm512_mask_storeu_epi8(end_ + at_ - 64, first_, window(static_cast<std::ptrdiff_t>(at_) - 64));
      first_ = 0;
    }
    std::size_t from = at_;
    for (std::size_t v = 0; v < W; ++v, from += 64)
      _mm512_store_si512(end_ + from, window(static_cast<std::ptrdiff_t>(from)));
    if (from < block_bytes_) _mm512_store_si512(end_ + from, window(static_cast<std::ptrdiff_t>(from)));
    end_ += block_bytes_;
    at_ = (at_ - block_bytes_) & 63;
  }

  /// Past the last block stored.
  char* end() const noexcept { return end_; }

 private:
  char* end_;
  std::size_t block_bytes_;
  std::size_t at_;       ///< the block's first byte that starts an aligned line
  std::uint64_t first_;  ///< the bytes of the first line from `out` on, until stored
};

/// The decimal digits d[0, n) plus one (all nines become zeros: only past the stream's last prefix).
template <class Digit>
void increment_digits(Digit* d, std::size_t n) noexcept {
  std::size_t i = n;
  while (i > 0 && d[i - 1] == '9') d[--i] = '0';
  if (i > 0) ++d[i - 1];
}

/// write(std::integral_constant<std::size_t, k>{}) for the k = `count` in [1, sizeof...(K)]: a
/// count known only at run time made a template argument. nullptr for a count out of range.
template <class Write, std::size_t... K>
char* dispatch_count(std::size_t count, std::index_sequence<K...>, Write write) noexcept {
  char* end = nullptr;
  static_cast<void>(
      ((count == K + 1 ? (end = write(std::integral_constant<std::size_t, K + 1>{}), true) : false) || ...));
  return end;
}

}  // namespace
}  // namespace fizzgen
