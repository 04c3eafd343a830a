#pragma once
// The FizzBuzz stream from any start, with any rules.

#include <cstddef>
#include <cstdint>
#include <vector>

#include "generators/arch.hpp"
#include "generators/decimal.hpp"
#include "generators/generator.hpp"
#include "generators/rules.hpp"

namespace fizzgen {

class fizzbuzz final : public generator {
 public:
  static constexpr std::size_t kDefaultChunkBytes = std::size_t{1} << 20;

  /// Lines from..from+total_lines-1 (unbounded when total_lines is nullopt); from > 0, rules
  /// non-empty. Chunks hold at most chunk_bytes bytes (more only when one line is longer). The
  /// classic rules run on `arch`'s vector kernel where the digit width allows.
  fizzbuzz(decimal from, rule_set rules, std::optional<std::uint64_t> total_lines,
           std::size_t chunk_bytes = kDefaultChunkBytes, kernel_arch const& arch = default_arch());

  std::size_t chunk_capacity() const noexcept override { return capacity_; }
  std::optional<chunk> plan(std::uint64_t index) const noexcept override { return plan_(index); }
  std::size_t fill(chunk const& c, std::span<std::byte> out) const noexcept override;

  std::uint64_t lines_per_chunk() const noexcept { return plan_.lines_per_chunk; }
  kernel_arch const& arch() const noexcept { return *arch_; }

 private:
  decimal from_;
  rule_set rules_;
  std::vector<std::uint64_t> from_residues_;  ///< from mod each divisor
  line_plan plan_;
  std::size_t capacity_ = 0;
  kernel_arch const* arch_;
  bool classic_ = false;     ///< rules are 3:Fizz 5:Buzz: the vector kernel applies
  std::uint64_t from_mod30_ = 0;
};

}  // namespace fizzgen
