#pragma once
// Reading a stream of lines in blocks that end on a line boundary, for the checks that run on
// threads: each block knows the index of its first line and the offset of its first byte, so a
// checker can start there on its own.

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace fizzgen::check {

/// Bytes read into a block, about (a carried partial line comes on top).
inline constexpr std::size_t kLineBlock = std::size_t{4} << 20;

/// A block of whole lines (the last block of a stream may end in a partial one).
struct line_block {
  std::unique_ptr<char[]> data;  // capacity kLineBlock + the longest carried partial line
  std::size_t capacity = 0;
  std::size_t size = 0;
  std::uint64_t first_line = 0;  // index in the stream of its first line
  std::uint64_t offset = 0;      // byte offset of its first byte
};

/// The '\n' bytes in [p, p + n). The serial stage of the checks on threads counts every block's
/// lines: std::count ran at 4 GB/s here (one byte at a time into a 64-bit count), a third of the
/// time of a two-thread check of a file; this compares 16 bytes a step into byte counters.
std::uint64_t count_newlines(char const* p, std::size_t n) noexcept;

/// Reads the stream into blocks that end on a line boundary (but the last).
class line_block_reader {
 public:
  /// A partial line longer than `longest_carry` is not carried but ends the stream (see next()).
  line_block_reader(int fd, std::size_t longest_carry) : fd_(fd), longest_carry_(longest_carry) {}

  /// Reads the next block into b (a reused block keeps its buffer); false at the end. Throws
  /// std::system_error("read") on a read error.
  bool next(line_block* b);

 private:
  int fd_;
  std::size_t longest_carry_;
  std::string carry_;  // at most longest_carry_ bytes
  std::uint64_t lines_ = 0, offset_ = 0;
  bool done_ = false;
};

}  // namespace fizzgen::check
