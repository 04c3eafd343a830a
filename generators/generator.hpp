#pragma once
// What a byte stream is: a generator cuts its stream into chunks (chunk i = lines [a_i, b_i)) and
// fills one chunk into a buffer. Pure functions of (chunk, configuration): no I/O, no threads, so
// any worker can fill any chunk and the bytes never depend on the thread count.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

namespace fizzgen {

struct chunk {
  std::uint64_t index = 0;
  std::uint64_t first_line = 0;  ///< offset of the chunk's first line from the stream's first line
  std::uint64_t lines = 0;
};

/// Chunk i holds lines [i * lines_per_chunk, (i + 1) * lines_per_chunk), clipped to total_lines.
struct line_plan {
  std::uint64_t lines_per_chunk = 1;
  std::optional<std::uint64_t> total_lines;  ///< nullopt: unbounded

  std::optional<chunk> operator()(std::uint64_t index) const noexcept {
    if (index > UINT64_MAX / lines_per_chunk) return std::nullopt;
    std::uint64_t const first = index * lines_per_chunk;
    std::uint64_t const end = total_lines ? *total_lines : UINT64_MAX;
    if (first >= end) return std::nullopt;
    return chunk{index, first, end - first < lines_per_chunk ? end - first : lines_per_chunk};
  }
};

class generator {
 public:
  virtual ~generator() = default;

  /// The most bytes fill() writes for any chunk.
  virtual std::size_t chunk_capacity() const noexcept = 0;
  /// Chunk `index`, or nullopt once the stream has ended.
  virtual std::optional<chunk> plan(std::uint64_t index) const noexcept = 0;
  /// Writes chunk c at the start of out (out.size() >= chunk_capacity()); returns the byte count.
  std::size_t fill(chunk const& c, std::span<std::byte> out) const noexcept { return fill_at(c, out, 0); }
  /// Writes chunk c at byte `at` of out (out.size() >= chunk_capacity()), where c is a slice of a
  /// planned chunk and `at` the bytes of its slices before c: slices written one after another in
  /// one buffer make the chunk, each line where the whole chunk's fill would put it (any scratch
  /// stays where it is for a whole chunk). Returns the byte count of c.
  virtual std::size_t fill_at(chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept = 0;
  /// True when chunks with the same number of lines always have identical bytes, so a buffer
  /// filled once can be emitted again and again without being rewritten.
  virtual bool constant() const noexcept { return false; }
  /// The number of lines the stream holds, nullopt when unbounded (what --progress shows the
  /// percent of).
  virtual std::optional<std::uint64_t> total_lines() const noexcept { return std::nullopt; }
};

}  // namespace fizzgen
