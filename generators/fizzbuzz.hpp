#pragma once
// The FizzBuzz stream from any start, with any rules.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "generators/arch.hpp"
#include "generators/decimal.hpp"
#include "generators/generator.hpp"
#include "generators/rule_template.hpp"
#include "generators/rules.hpp"
#include "generators/width_plan.hpp"

namespace fizzgen {

class fizzbuzz final : public generator {
 public:
  static constexpr std::size_t kDefaultChunkBytes = std::size_t{1} << 20;

  /// Lines from..from+total_lines-1 (unbounded when total_lines is nullopt); from > 0, rules
  /// non-empty. Chunks hold about chunk_bytes bytes on average (at least one line), and never mix
  /// digit widths. The classic rules run on `arch`'s vector kernel where the width allows.
  fizzbuzz(decimal const& from, rule_set rules, std::optional<std::uint64_t> total_lines,
           std::size_t chunk_bytes = kDefaultChunkBytes, kernel_arch const& arch = default_arch());

  std::size_t chunk_capacity() const noexcept override { return capacity_; }
  std::optional<chunk> plan(std::uint64_t index) const noexcept override { return plan_.plan(index); }
  std::size_t fill_at(chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept override;
  std::optional<std::uint64_t> total_lines() const noexcept override { return plan_.total_lines(); }

  /// The most lines any chunk holds.
  std::uint64_t lines_per_chunk() const noexcept { return plan_.max_lines(); }
  kernel_arch const& arch() const noexcept { return *arch_; }
  /// True when a vector kernel writes (most of) the stream: classic rules and a vector arch, or
  /// custom rules of a short period whose words fit the arch's vectors (the template kernel).
  bool uses_kernel() const noexcept {
    return classic_ || (template_ && (template_->longest_word + 1 <= arch_->vector_bytes || template_->permutes_any()));
  }

 private:
  rule_set rules_;
  width_plan plan_;
  /// Custom rules with a period of at most kMaxTablePeriod: the words of each line by N mod period
  /// (offset and length into table_words_; length 0: the line is the number).
  static constexpr std::uint64_t kMaxTablePeriod = 1 << 16;
  struct table_entry {
    std::uint32_t offset = 0, length = 0;
  };
  std::vector<table_entry> table_;
  std::string table_words_;   ///< followed by 32 bytes of padding for fixed-size copies
  std::uint64_t period_ = 0;  ///< 0: no table
  std::uint64_t from_mod_period_ = 0;
  /// Custom rules of a period up to rule_template::kMaxPeriod on a vector arch: the template
  /// kernel writes every chunk of width >= 2 it can (the table path the rest).
  std::optional<rule_template> template_;
  std::uint64_t from_mod_block_ = 0;  ///< from mod template_->block_lines
  char* table_lines(char* p, line_state& first, std::uint64_t phase, std::uint64_t count) const noexcept;
  std::size_t capacity_ = 0;          ///< the lines, their slack, then 64 + the scratch (fill)
  std::size_t scratch_offset_ = 0;    ///< where the scratch begins (then aligned up to 64)
  std::size_t template_scratch_ = 0;  ///< offset of the template kernel's part of the scratch
  kernel_arch const* arch_;
  bool classic_ = false;  ///< rules are 3:Fizz 5:Buzz: the vector kernel applies
};

}  // namespace fizzgen
