#pragma once
// GNU yes: one line (the arguments joined by single spaces, or "y"), repeated forever; and lines
// of yes cut to a fixed length (yes::of_line with cycled_line) or to seeded random lengths
// (yes_random_lengths), for consumers that must cope with any line length.

#include <string>
#include <string_view>
#include <vector>

#include "generators/generator.hpp"

namespace fizzgen {

/// The text of a yes line, without its newline: the words joined by single spaces; "y" for none.
std::string yes_text(std::vector<std::string> const& words);

/// A line of exactly `length` bytes (>= 1): `text` repeated and cut to length - 1 bytes, then
/// '\n'. `text` may be empty only when length is 1.
std::string cycled_line(std::string_view text, std::size_t length);

class yes final : public generator {
 public:
  static constexpr std::size_t kDefaultChunkBytes = std::size_t{1} << 20;

  /// words empty means "y". Chunks hold whole lines, at least one.
  explicit yes(std::vector<std::string> const& words, std::optional<std::uint64_t> total_lines = std::nullopt,
               std::size_t chunk_bytes = kDefaultChunkBytes);

  /// The stream of `line` (ending in '\n') repeated.
  static yes of_line(std::string line, std::optional<std::uint64_t> total_lines = std::nullopt,
                     std::size_t chunk_bytes = kDefaultChunkBytes);

  std::size_t chunk_capacity() const noexcept override { return plan_.lines_per_chunk * line_.size(); }
  std::optional<chunk> plan(std::uint64_t index) const noexcept override { return plan_(index); }
  std::size_t fill_at(chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept override;
  bool constant() const noexcept override { return true; }
  std::optional<std::uint64_t> total_lines() const noexcept override { return plan_.total_lines; }

  std::string const& line() const noexcept { return line_; }

 private:
  struct line_tag {};
  yes(line_tag, std::string line, std::optional<std::uint64_t> total_lines, std::size_t chunk_bytes);

  std::string line_;
  line_plan plan_;
};

/// Lines of yes whose lengths are drawn with a seed: line k (from 0) is length(k) bytes, its
/// newline included, from `shortest` to `longest` (splitmix64's output k for the seed, modulo the
/// number of lengths), each cycled_line(text, length(k)). The lengths are a counter's, so any
/// chunk is filled on its own; `fizzgen check --yes --line-length random:A..B --seed S` verifies.
class yes_random_lengths final : public generator {
 public:
  /// 1 <= shortest <= longest; text non-empty unless longest is 1.
  yes_random_lengths(std::string_view text, std::size_t shortest, std::size_t longest, std::uint64_t seed,
                     std::optional<std::uint64_t> total_lines = std::nullopt,
                     std::size_t chunk_bytes = yes::kDefaultChunkBytes);

  std::size_t chunk_capacity() const noexcept override { return plan_.lines_per_chunk * longest_; }
  std::optional<chunk> plan(std::uint64_t index) const noexcept override { return plan_(index); }
  std::size_t fill_at(chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept override;
  std::optional<std::uint64_t> total_lines() const noexcept override { return plan_.total_lines; }

  /// The length of line k, its newline included.
  std::size_t length(std::uint64_t k) const noexcept;

 private:
  std::string text_;  // the text cycled to longest - 1 bytes: every line is a prefix and '\n'
  std::size_t shortest_, longest_;
  std::uint64_t seed_;
  line_plan plan_;
};

}  // namespace fizzgen
