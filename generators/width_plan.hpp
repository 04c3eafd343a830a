#pragma once
// What the plain and the Morse FizzBuzz streams share: chunks that never mix digit widths (one
// segment of chunks per width, each width's chunks sized by its average line), the state at a
// chunk's first line, the line-at-a-time writer used around digit roll-overs and for custom rules,
// and the walk that hands whole 30-line blocks of the classic rules to a block kernel.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "generators/decimal.hpp"
#include "generators/generator.hpp"
#include "generators/rules.hpp"

namespace fizzgen {

/// lcm of the divisors, or 0 when it exceeds `cap`.
std::uint64_t rule_period(rule_set const& rules, std::uint64_t cap);

/// 10^d - n for the d-digit number n: how many lines keep the current width. Saturates.
std::uint64_t lines_before_rollover(std::string_view n) noexcept;

/// p rounded up to a multiple of 64: where a fill's scratch starts in the spare bytes a generator
/// keeps at the end of its buffer (the buffer's own alignment is the caller's).
inline std::byte* align_up_64(std::byte* p) noexcept {
  auto const a = reinterpret_cast<std::uintptr_t>(p);
  return p + (64 - a % 64) % 64;
}

/// The current line of a fill: its number's digits and residues, kept in scratch memory that the
/// generator carves from the end of the output buffer (width_plan::scratch_bytes), so that a fill
/// allocates nothing.
struct line_state {
  char* digits = nullptr;  ///< [0, width): the number; one more byte for a roll-over, then
                           ///< width_plan::kDigitSlack readable bytes
  std::size_t width = 0;
  std::uint64_t* residue = nullptr;  ///< the number mod each rule's divisor

  std::string_view number() const noexcept { return {digits, width}; }
};

/// Writes `count` plain lines at p the obvious way, one at a time, advancing s (its digits, which
/// may grow by one at a roll-over, and its residues); returns the end.
char* plain_lines(char* p, line_state& s, rule_set const& rules, std::uint64_t count) noexcept;

/// The lines from..from+total_lines-1 cut into chunks of about chunk_bytes bytes that never mix
/// digit widths, so that every line of a chunk is as wide as its first.
class width_plan {
 public:
  /// `line_bytes(width)`: the average bytes of a line at that width, over the rules' period (what
  /// sizes the chunks); `longest(width)`: the most bytes any line of that width takes (what sizes
  /// the buffer). Whole rule periods per chunk keep every chunk of a width at the same phase, and
  /// at the same size: where `period_bytes(width, period)` gives the bytes of `period` lines at
  /// that width, a chunk of whole periods is bounded by those exactly, not by its longest lines
  /// (a 512 KiB chunk of the classic rules: 2.8x less, so that three buffers share a huge page).
  using period_bytes_fn = std::function<std::uint64_t(std::size_t width, std::uint64_t period)>;
  width_plan(decimal const& from, rule_set const& rules, std::optional<std::uint64_t> total_lines,
             std::size_t chunk_bytes, std::function<double(std::size_t)> const& line_bytes,
             std::function<std::size_t(std::size_t)> const& longest, period_bytes_fn const& period_bytes = {});

  /// Periods up to this many lines are counted out for period_bytes.
  static constexpr std::uint64_t kExactPeriod = 4096;

  /// Bytes the writers may read past a number's digits (the table path copies 32 at a time).
  static constexpr std::size_t kDigitSlack = 32;

  std::optional<chunk> plan(std::uint64_t index) const noexcept;
  /// Bytes of scratch (8-aligned) that start() needs.
  std::size_t scratch_bytes() const noexcept;
  /// The most digits a line_state's number reaches (a roll-over after a chunk's last line included).
  std::size_t max_width() const noexcept;
  /// The first number of chunk c and its residues, kept in `scratch` (scratch_bytes() bytes,
  /// 8-aligned). Allocates nothing.
  line_state start(chunk const& c, std::byte* scratch) const noexcept;
  /// The most lines any chunk holds.
  std::uint64_t max_lines() const noexcept { return max_lines_; }
  /// The most bytes any chunk takes, before the writers' slack.
  std::size_t capacity() const noexcept { return capacity_; }
  /// The lines planned, nullopt when unbounded.
  std::optional<std::uint64_t> total_lines() const noexcept { return total_lines_; }
  /// from mod 30, for the classic rules' block walk.
  std::uint64_t from_mod30() const noexcept { return from_mod30_; }

 private:
  /// Lines of one digit width: offsets [first_line, end_line) from `from`, cut into chunks of
  /// lines_per_chunk lines; chunk numbering continues from segment to segment.
  struct segment {
    std::uint64_t first_line = 0, end_line = 0, lines_per_chunk = 1, first_chunk = 0;
  };
  decimal from_;
  rule_set rules_;
  std::vector<std::uint64_t> from_residues_;  ///< from mod each divisor
  std::vector<segment> segments_;
  std::optional<std::uint64_t> total_lines_;
  std::uint64_t max_lines_ = 0;
  std::size_t capacity_ = 0;
  std::uint64_t from_mod30_ = 0;
};

/// Writes `lines` lines of the classic rules from `number`, which is `mod30` mod 30: whole 30-line
/// blocks that start on a number 30k+1 and keep one width go to `blocks(p, prefix, prefix_width,
/// count)`, which rewrites the prefix (every digit but the units, which stays 1) in place, while
/// the prefix is 1 to `max_prefix` digits wide; the lines around them go to `scalar(p, count)`,
/// which advances `number` (and whatever residues it keeps: after 30 lines, the residues mod 3 and
/// 5 are what they were). Returns the end.
template <class Blocks, class Scalar>
char* classic_walk(char* p, line_state& number, std::uint64_t mod30, std::uint64_t lines, std::size_t max_prefix,
                   Blocks blocks, Scalar scalar) {
  for (std::uint64_t left = lines; left > 0;) {
    std::size_t const width = number.width;
    bool const kernel_width = width >= 2 && width - 1 <= max_prefix;
    std::uint64_t const same_width = lines_before_rollover(number.number());
    std::uint64_t const n_blocks = mod30 == 1 && kernel_width ? std::min(left, same_width) / 30 : 0;
    if (n_blocks > 0) {
      p = blocks(p, number.digits, width - 1, n_blocks);
      left -= n_blocks * 30;  // 30 lines later the number is 30k+1 again
      continue;
    }
    // Up to the next 30k+1, or to the roll-over, or everything when the kernel cannot help.
    std::uint64_t n = (31 - mod30) % 30;
    if (n == 0) n = std::min<std::uint64_t>(same_width, 30);
    if (!kernel_width) n = left;
    n = std::min(n, left);
    p = scalar(p, n);
    mod30 = (mod30 + n) % 30;
    left -= n;
  }
  return p;
}

}  // namespace fizzgen
