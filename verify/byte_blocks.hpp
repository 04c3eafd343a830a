#pragma once
// The checks of streams whose every byte is known from its offset alone (`random`, `yes` lines of
// one length) on threads: fixed-size blocks are read in order, each compared on its own with what
// belongs at its offset, and the first difference in stream order wins.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "pipeline/ordered.hpp"

namespace fizzgen::check {

/// How a scan ended.
struct byte_scan {
  std::uint64_t bytes = 0;  ///< bytes that arrived before the first difference (all of them when none)
  bool differs = false;     ///< a byte differs: the one at offset `bytes`
  std::string around;       ///< on a difference: its block from the start of the line it is in (at most 256 bytes)
  int read_error = 0;       ///< errno of a failed read, after `bytes` bytes; 0 none
};

/// Reads up to `size` bytes into data, until it is full or the input ends (EINTR retried); returns
/// the count. On a read error it sets `error` to its errno and returns what came before it.
std::size_t read_block(int fd, char* data, std::size_t size, int& error);

/// Reads fd in blocks of `block_bytes` (each whole but the last) until its end, the first
/// difference or a read error, on `threads` threads. `differ(offset, data, size)` is called on
/// any thread with a block and returns where in it the first byte that does not belong at
/// offset + i is, or size when all do. `line_start(offset)`: the offset of the line holding that
/// byte (for byte_scan::around; return offset itself when the stream has no lines).
template <class Differ, class LineStart>
byte_scan scan_byte_blocks(int fd, std::size_t block_bytes, unsigned threads, Differ differ, LineStart line_start) {
  struct block {
    std::unique_ptr<char[]> data;
    std::size_t size = 0;
    std::uint64_t offset = 0;
    std::size_t bad = 0;  // first differing index, size when none
  };
  byte_scan scan;
  std::uint64_t offset = 0;
  bool ended = false;
  int error = 0;
  auto const read = [&](block& b) {
    if (ended) return false;
    if (!b.data) b.data = std::make_unique_for_overwrite<char[]>(block_bytes);
    b.size = read_block(fd, b.data.get(), block_bytes, error);
    b.offset = offset;
    offset += b.size;
    ended = b.size < block_bytes;
    return b.size > 0;
  };
  auto const compare = [&](block& b) { b.bad = differ(b.offset, b.data.get(), b.size); };
  auto const combine = [&](block const& b) {
    if (b.bad == b.size) {
      scan.bytes += b.size;
      return true;
    }
    scan.bytes += b.bad;
    scan.differs = true;
    std::uint64_t const start = line_start(b.offset + b.bad);
    std::size_t const from = start > b.offset ? static_cast<std::size_t>(start - b.offset) : 0;
    scan.around.assign(b.data.get() + from, std::min<std::size_t>(b.size - from, 256));
    return false;
  };
  pipeline::run_ordered<block>(threads, 2 * std::size_t{threads}, read, compare, combine);
  if (!scan.differs && error != 0) scan.read_error = error;
  return scan;
}

}  // namespace fizzgen::check
