#pragma once
// The classic-rules FizzBuzz kernel. Thirty lines (numbers 30k+1 .. 30k+30) always have the same
// shape at a given digit width d: the units digit of every line is fixed by its position and the
// other d-1 digits ("prefix") are 3k, 3k+1 or 3k+2. So a block is 30 overlapping vector stores of
// precomputed line images (prefix | units digit and newline, or a word), and the only arithmetic is
// three decimal increments of a prefix kept in a vector register; carries past the units digit of
// the prefix (one increment in ten) take a short scalar detour.
//
// This header only declares the functor; generators/simd/fizzbuzz_<arch>.cpp instantiate it, each
// compiled for its instruction set, so the binary runs anywhere and picks the best at run time.

#include <cstddef>
#include <cstdint>

namespace fizzgen {

struct fizzbuzz_blocks {
  /// The longest number line the kernel writes, newline included, whatever the vector width: a
  /// line spans up to 256 / vector bytes vectors (16 of SSE, 4 of AVX-512).
  static constexpr std::size_t kLineBytes = 256;

  /// Writes `blocks` 30-line blocks, the first starting at number 30k+1 whose first d-1 digits
  /// are prefix[0..prefix_len). Requires 1 <= prefix_len <= kLineBytes - 2 and that every number
  /// written keeps d digits. Stores up to one vector past the returned end. On return prefix
  /// holds the prefix of the next block.
  template <class Arch>
  char* operator()(Arch, char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) const noexcept;
};

}  // namespace fizzgen
