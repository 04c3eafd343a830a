#pragma once
// GNU yes: one line (the arguments joined by single spaces, or "y"), repeated forever.

#include <string>
#include <vector>

#include "generators/generator.hpp"

namespace fizzgen {

class yes final : public generator {
 public:
  static constexpr std::size_t kDefaultChunkBytes = std::size_t{1} << 20;

  /// words empty means "y". Chunks hold whole lines, at least one.
  explicit yes(std::vector<std::string> const& words, std::optional<std::uint64_t> total_lines = std::nullopt,
               std::size_t chunk_bytes = kDefaultChunkBytes);

  std::size_t chunk_capacity() const noexcept override { return plan_.lines_per_chunk * line_.size(); }
  std::optional<chunk> plan(std::uint64_t index) const noexcept override { return plan_(index); }
  std::size_t fill(chunk const& c, std::span<std::byte> out) const noexcept override;
  bool constant() const noexcept override { return true; }
  std::optional<std::uint64_t> total_lines() const noexcept override { return plan_.total_lines; }

  std::string const& line() const noexcept { return line_; }

 private:
  std::string line_;
  line_plan plan_;
};

}  // namespace fizzgen
