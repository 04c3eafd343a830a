#pragma once
// The FizzBuzz stream in Morse for any rules of a short period, as a list of vector stores. Over
// Q = lcm(period, 10) lines from a multiple of Q, the line at phase j is always the same words,
// or a number whose units digit is j mod 10 and whose other digits (the "prefix", the number div
// 10) are those of its group of ten. Every digit's code is five symbols, so at width d a number's
// line is the prefix's image (each digit's code and a space, 6(d-1) bytes), the units digit's
// code and '\n': the words' Morse is constant, and only the prefix images change, once per group.
// A plan per width lists the stores that write a block: each is the OR of a group's prefix vector
// (or zeros) and a constant image, the bytes up to the next store, so that a number line and the
// words after it take as few stores as the vector holds.
//
// This header holds the plans, built once per generator; the kernels that run them are
// kernel_arch::morse_rules (generators/morse_rules_kernel_impl.hpp, instantiated in
// generators/simd/morse_fizzbuzz_<arch>.cpp).

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "generators/rules.hpp"

namespace fizzgen {

/// One store of a plan: prefix vector `prefix` (group g's vector k is g * prefix_vectors + k, the
/// last index a zero vector) ORed with constant image `image`, stored at `offset` in the block.
struct morse_store {
  std::uint32_t offset;
  std::uint16_t prefix;
  std::uint16_t image;
};

/// One block (block_lines lines from phase 0) at one digit width.
struct morse_rules_plan {
  std::size_t width = 0;           ///< digits of every number; 0: not planned
  std::size_t store_bytes = 0;     ///< bytes of every store (16, 32 or 64, whichever costs least)
  std::size_t prefix_vectors = 0;  ///< store_bytes vectors a prefix image takes
  std::uint64_t block_lines = 0;   ///< a multiple of Q: short blocks are planned several at once
  std::uint64_t groups = 0;        ///< block_lines / 10
  std::size_t block_bytes = 0;
  std::vector<std::uint32_t> line_offset;  ///< by line, block_lines + 1: where each line starts
  /// By line, block_lines + 1: the first store at or after the line's start.
  std::vector<std::uint32_t> line_store;
  /// By line, block_lines + 1: the first line at or after this one that a store starts (number
  /// lines always do); the lines before it are words, copied from `text`.
  std::vector<std::uint32_t> stored_line;
  std::vector<morse_store> stores;
  std::vector<std::uint8_t> images;  ///< store_bytes bytes each; zeros where a prefix goes, and past the next store
  std::vector<char> text;            ///< the block, zeros for the prefixes
  /// The prefix image of a group is its high digits' image ORed with low[t], t its last two
  /// digits (its one digit when the prefix has one): t's codes at their place, zeros elsewhere,
  /// prefix_vectors vectors each. Within a hundred groups no digit carries and nothing narrow is
  /// stored, where an image rewritten digit by digit and read back whole stalls the loads.
  std::vector<std::uint8_t> low;
  std::size_t low_digits() const noexcept { return width >= 3 ? 2 : 1; }

  /// Scratch the kernel needs (64-aligned): the prefix vectors of every group and the zero one,
  /// the image of the current prefix's high digits, those digits.
  std::size_t scratch_bytes() const noexcept {
    return (groups * prefix_vectors + 1) * store_bytes + (prefix_vectors * store_bytes + 64) + (width + 64);
  }
};

/// The plans for one rule set, by width.
struct morse_rules_template {
  /// Longest period planned: a block holds Q <= 10 * kMaxPeriod lines.
  static constexpr std::uint64_t kMaxPeriod = 4096;
  /// Bytes a block takes at least, as whole Q-line blocks when one is shorter (each block costs a
  /// loop exit and its prefixes).
  static constexpr std::size_t kMinBlockBytes = 8192;
  /// Bytes a block takes at most: its stores and images are read once per block.
  static constexpr std::size_t kMaxBlockBytes = 256 * 1024;
  /// The widest number planned: a prefix image of at most four 64-byte vectors.
  static constexpr std::size_t kMaxWidth = 43;

  std::uint64_t period_lines = 0;       ///< Q = lcm(period, 10)
  std::vector<morse_rules_plan> plans;  ///< by width; width 0 where there is none
  std::size_t scratch_bytes = 0;        ///< the most any plan needs

  /// The plan for `width`, or nullptr.
  morse_rules_plan const* plan_for(std::size_t width) const noexcept {
    return width < plans.size() && plans[width].width != 0 ? &plans[width] : nullptr;
  }

  /// Plans widths [first, last] (clipped to [2, kMaxWidth]) for stores of at most vector_bytes;
  /// nullopt when the rules' period is over kMaxPeriod or no width gets a plan.
  static std::optional<morse_rules_template> build(rule_set const& rules, std::size_t first, std::size_t last,
                                                   std::size_t vector_bytes);
};

}  // namespace fizzgen
