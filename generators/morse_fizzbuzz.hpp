#pragma once
// The FizzBuzz stream in Morse: every line of the plain stream (any start, any rules) encoded by
// the docs/morse.md rules, so `1` is ".----", `Fizz` is "..-. .. --.. --..", each line ends in '\n'.
// A rule word with no encodable character (say "###") gives an empty line, exactly what encoding
// the plain stream gives.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generators/arch.hpp"
#include "generators/decimal.hpp"
#include "generators/generator.hpp"
#include "generators/morse_fizzbuzz_kernel.hpp"
#include "generators/morse_rules_plan.hpp"
#include "generators/rules.hpp"
#include "generators/width_plan.hpp"

namespace fizzgen {

class morse_fizzbuzz final : public generator {
 public:
  static constexpr std::size_t kDefaultChunkBytes = std::size_t{1} << 20;

  /// Lines from..from+total_lines-1 (unbounded when total_lines is nullopt); from > 0, rules
  /// non-empty. Chunks hold about chunk_bytes bytes on average (at least one line) and never mix
  /// digit widths. The classic rules run on `arch`'s block kernel where the width allows, other
  /// rules of a short period on its plan kernel (generators/morse_rules_plan.hpp).
  morse_fizzbuzz(decimal const& from, rule_set rules, std::optional<std::uint64_t> total_lines,
                 std::size_t chunk_bytes = kDefaultChunkBytes, kernel_arch const& arch = default_arch());

  std::size_t chunk_capacity() const noexcept override { return capacity_; }
  std::optional<chunk> plan(std::uint64_t index) const noexcept override { return plan_.plan(index); }
  std::size_t fill_at(chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept override;
  std::optional<std::uint64_t> total_lines() const noexcept override { return plan_.total_lines(); }

  /// The most lines any chunk holds.
  std::uint64_t lines_per_chunk() const noexcept { return plan_.max_lines(); }
  kernel_arch const& arch() const noexcept { return *arch_; }
  /// True when a vector kernel writes (most of) the stream: the block kernel (classic rules) or
  /// the plan kernel (custom rules of a short period) on a vector arch.
  bool uses_kernel() const noexcept { return kernel_ != nullptr || rules_plans_.has_value(); }

 private:
  /// Plain lines encoded a batch of about this many bytes at a time.
  static constexpr std::size_t kPlainBatch = 8192;
  char* scalar_lines(char* out, line_state& s, char* plain, std::uint64_t count) const noexcept;

  rule_set rules_;
  std::size_t longest_plain_ = 0;  ///< the longest plain line of words, newline included
  width_plan plan_;
  std::size_t scratch_offset_ = 0;  ///< after the lines and their slack: the scratch, aligned up to 64
  std::size_t plain_offset_ = 0;    ///< the plain-lines batch, within the scratch
  std::size_t plain_bytes_ = 0;
  std::size_t capacity_ = 0;
  kernel_arch const* arch_;
  morse_blocks_fn kernel_ = nullptr;  ///< classic rules on a vector arch; nullptr: scalar lines
  /// Custom rules of a short period on a vector arch: arch_->morse_rules writes every chunk of a
  /// planned width, with its scratch at rules_offset_ within the fill's.
  std::optional<morse_rules_template> rules_plans_;
  std::uint64_t from_mod_q_ = 0;  ///< from mod rules_plans_->period_lines
  std::size_t rules_offset_ = 0;
};

}  // namespace fizzgen
