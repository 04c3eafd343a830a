#pragma once
// The template kernel for custom rules: the classic kernel's idea for any rules whose period P (the
// lcm of the divisors) is short. Over Q = lcm(P, 10) lines starting at a multiple of Q, the line at
// phase j is always the same word, or a number whose units digit is j mod 10; the other digits
// ("prefix", the number div 10) are the same for ten lines and then go up by one. So every line is
// one vector store of a precomputed image (a word, or units digit and newline) ORed with the prefix
// masked in or out, and the only arithmetic is one decimal increment of the prefix every ten lines.
// Whole blocks go faster still: a plan per width lists the block's stores, one per number line
// (its image carrying the words after it) plus one per stretch of words no store reached, and
// each is an image ORed with the prefix of its group of ten (the prefixes of a block computed
// first, two table lookups each).
//
// This header holds the per-rules table and declares the functor; generators/simd/rule_template_
// <arch>.cpp instantiate it from rule_template_impl.hpp, each compiled for its instruction set.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generators/rules.hpp"

namespace fizzgen {

/// One store of a whole block: image `image` ORed with prefix `group` (the zero vector for words).
struct block_store {
  std::uint32_t offset;
  std::uint16_t group;
  std::uint16_t image;
};

/// The stores that write one block (Q lines from phase 0) at one digit width, with `store_bytes`
/// vectors. Built once per width: planning costs about as much as writing the block.
struct block_plan {
  std::size_t store_bytes = 0;  ///< 0: not planned, the kernel goes line by line
  std::size_t block_bytes = 0;
  std::vector<block_store> stores;
  std::vector<std::uint8_t> images;  ///< store_bytes bytes each
};

/// 64 bytes on a 64-byte boundary: what a permutation plan's lanes are kept in.
struct alignas(64) lane_bytes64 {
  std::uint8_t bytes[64];
};

/// The bytes of `v` as one array (lanes of any width run across its elements).
inline std::uint8_t* lane_data(std::vector<lane_bytes64>& v) noexcept {
  return reinterpret_cast<std::uint8_t*>(v.data());
}
inline std::uint8_t const* lane_data(std::vector<lane_bytes64> const& v) noexcept {
  return reinterpret_cast<std::uint8_t const*>(v.data());
}

/// One block (block_lines, a multiple of Q, from phase 0) at one digit width as byte permutations instead of a store
/// per line: the block's prefixes are packed (group g's width - 1 digits at g * (width - 1)), and output lane i
/// (lane_bytes bytes at lane_bytes * i) takes each byte from the lane_bytes-wide window of the packed prefixes at
/// window[i] or, where the byte is constant (a units digit, a newline, a word), from the constants: a 64-byte source
/// next to the window (index 64 + k) for 64-byte lanes, the lane's `image` (index 0x80, which shuffles to zero) for
/// narrower ones. Built once per width.
struct permute_plan {
  std::size_t lane_bytes = 0;     ///< 0: not planned
  std::uint64_t block_lines = 0;  ///< a multiple of the template's: short blocks go several at a time
  std::size_t block_bytes = 0;
  std::vector<std::uint32_t> line_offset;  ///< by phase, Q + 1 of them: where each line starts
  std::vector<std::uint32_t> window;       ///< by lane: the first packed prefix byte its window holds
  std::vector<lane_bytes64> index;         ///< lane_bytes per lane
  std::vector<lane_bytes64> image;         ///< lane_bytes per lane, lanes under 64 bytes only
  lane_bytes64 constants{};                ///< 64-byte lanes only
  /// A run of the table of prefixes the windows are read from: span (100, or 10 for one-digit
  /// prefixes) consecutive prefixes from one ending in zeros, whose last digits are constant
  /// (`spread_low`) and whose other digits, the same for all, are spread over them by a shuffle
  /// (`spread_index`: the digit, or a zero); one store's bytes at a time.
  std::vector<lane_bytes64> spread_index, spread_low;

  std::uint8_t const* index_of(std::size_t lane) const noexcept { return lane_data(index) + lane * lane_bytes; }
  std::uint8_t const* image_of(std::size_t lane) const noexcept { return lane_data(image) + lane * lane_bytes; }
};

struct rule_template {
  /// Longest period the template is built for: the table holds lcm(P, 10) <= 10P bytes, read
  /// once per block, so it must stay small next to an L2-sized chunk.
  static constexpr std::uint64_t kMaxPeriod = 4096;
  /// Distinct word lines a kernel keeps as vector images (on its stack), besides the ten units digits.
  static constexpr std::size_t kMaxWords = 54;
  static constexpr std::size_t kImages = 10 + kMaxWords;

  std::uint64_t block_lines = 0;  ///< Q = lcm(P, 10)
  /// By phase j in [0, Q): image j mod 10 (a number line) or 10 + w (the line is words[w]).
  std::vector<std::uint8_t> line_image;
  std::vector<std::string> words;  ///< the distinct word lines, without the newline
  std::size_t longest_word = 0;
  std::vector<block_plan> plans;       ///< by digit width
  std::vector<permute_plan> permutes;  ///< by digit width, for kernels that permute (lane_bytes != 0)
  /// Bytes of scratch (64-aligned) the kernel needs for the planned widths: the block's images,
  /// prefixes and two-digit table, kept there so that a fill allocates nothing.
  std::size_t scratch_bytes = 0;

  /// Blocks longer than this go line by line: a plan holds about 10 bytes per line and width.
  static constexpr std::uint64_t kMaxPlannedBlock = 20000;

  /// The vector bytes a kernel whose widest vector is `vector_bytes` stores for lines of at most
  /// `line` bytes, or 0 when they do not fit. 32-byte stores even for short lines: each carries
  /// more of the words after a number, so a block needs fewer (3:Fizz 5:Buzz 7:Bazz from 1: 19.9
  /// GiB/s against 12.3 with 16); 64-byte ones, which split a cache line on most stores, only for
  /// longer lines (11.3 GiB/s there).
  static std::size_t store_bytes(std::size_t line, std::size_t vector_bytes) noexcept;

  /// Bytes of prefixes a permuting kernel's table holds at least (a block's and a run's more when
  /// a block is longer): the table is rewritten once its blocks have gone past it.
  static constexpr std::size_t kPermuteTable = 4096;
  /// Bytes a permutation plan's block takes at least, as whole template blocks, when one is shorter
  /// (one 210-line block of 3:Fizz 5:Buzz 7:Bazz is 27 vectors, and each block costs a loop exit).
  static constexpr std::size_t kPermuteBlock = 8192;
  /// Bytes a permutation plan's block takes at most: its index (and, for narrow lanes, image)
  /// bytes are read once per block, so they must stay small next to an L2-sized chunk, and every
  /// width of every arch row holds a plan. Longer blocks take the store plans.
  static constexpr std::size_t kMaxPermuteBlock = 64 * 1024;

  /// Runs of prefixes in a permuting kernel's table for blocks of `groups` groups of ten and
  /// prefixes of `len` digits: a block starts anywhere in the first run and ends within the table.
  static std::uint64_t permute_runs(std::uint64_t groups, std::size_t len) noexcept {
    std::uint64_t const span = len >= 2 ? 100 : 10;
    return std::max<std::uint64_t>(1 + (groups + span - 1) / span, kPermuteTable / (span * len));
  }
  /// Widest number a permutation plan takes: its prefix fits one 64-byte vector with room to spare.
  static constexpr std::size_t kMaxPermuteWidth = 63;

  /// Plans the blocks of every width in [first, last] (clipped to what the vectors hold) for a
  /// kernel whose widest vector is `vector_bytes`, and, when `lane_bytes` is not 0, the
  /// permutation plans of a kernel that permutes lanes of that many bytes.
  void plan_widths(std::size_t first, std::size_t last, std::size_t vector_bytes, std::size_t lane_bytes = 0);

  /// True when some width has a permutation plan.
  bool permutes_any() const noexcept {
    return std::any_of(permutes.begin(), permutes.end(), [](permute_plan const& p) { return p.lane_bytes != 0; });
  }

  /// The permutation plan for `width`, or nullptr when there is none for lanes of `lane_bytes`.
  permute_plan const* permute_for(std::size_t width, std::size_t lane_bytes) const noexcept {
    if (width >= permutes.size() || permutes[width].lane_bytes != lane_bytes) return nullptr;
    return &permutes[width];
  }

  /// The table for `rules` of period `period` (the lcm of their divisors); nullopt when the period
  /// is 0 or over kMaxPeriod, or the distinct word lines are more than kMaxWords.
  static std::optional<rule_template> build(rule_set const& rules, std::uint64_t period);
};

struct rule_template_fill {
  /// Writes `lines` lines from the number whose `width` >= 2 digits are at `number`, which is
  /// `phase` mod t.block_lines; every number written must keep `width` digits. Stores up to one
  /// vector (Arch's width) past the returned end. Requires width + 1 and t.longest_word + 1 to be
  /// at most Arch's vector width, and `scratch` to hold t.scratch_bytes bytes, 64-aligned.
  template <class Arch>
  char* operator()(Arch, char* out, rule_template const& t, char const* number, std::size_t width, std::uint64_t phase,
                   std::uint64_t lines, std::byte* scratch) const noexcept;
};

}  // namespace fizzgen
