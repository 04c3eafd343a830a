// `fizzgen check` on every core: blocks of whole lines are read in order, each is verified by its
// own checker starting at the number its first line must have, and the results are combined in
// order. Only the newline count of each block is serial work, which vectorises to far more than a
// pipe delivers.

#include <algorithm>
#include <memory>
#include <string>
#include <string_view>

#include "pipeline/ordered.hpp"
#include "verify/check.hpp"
#include "verify/line_blocks.hpp"
#include "verify/morse_lines.hpp"

namespace fizzgen::check {
namespace {

/// A block of lines and what its checker found.
struct block : line_block {
  result r;
  std::string text;  // a Morse block decoded
};

/// Turns the result of a decoded Morse block into one about the Morse bytes of block b.
void to_morse(block& b) {
  result& r = b.r;
  if (r.ok) {
    r.bytes = b.size;
    std::size_t const last = std::string_view(b.data.get(), b.size).rfind('\n');
    r.tail_bytes = last == std::string_view::npos ? b.size : b.size - last - 1;
    return;
  }
  // The bad line's start: after the (bad_line - 1)-th newline of the block.
  std::string_view const morse(b.data.get(), b.size);
  std::size_t start = 0;
  for (std::uint64_t k = 1; k < r.bad_line; ++k) start = morse.find('\n', start) + 1;
  std::string_view const line = morse.substr(start, morse.find('\n', start) - start);
  r.bad_offset = start;
  r.bytes = start;
  r.actual = std::string(line.substr(0, kShowMax));
  r.actual_truncated = line.size() > kShowMax;
  r.expected = encode_morse_line(r.expected);
}

}  // namespace

result check_fd_parallel(int fd, options const& o, unsigned threads) {
  checker const validate(o);  // throws on bad options before any thread starts
  line_block_reader reader(fd, (o.morse ? kMorsePerChar : 1) * longest_line(o) + kShowMax);
  result total;
  auto const verify = [&](block& b) {
    options mine = o;
    mine.from = add_decimal(o.from, b.first_line);
    checker c(mine);
    if (!o.morse) {
      c.feed({b.data.get(), b.size});
      b.r = c.finish();
      return;
    }
    b.text.clear();
    decode_morse_lines({b.data.get(), b.size}, b.text);
    c.feed(b.text);
    b.r = c.finish();
    to_morse(b);
  };
  // The first bad block ends the reading; the blocks read already are dropped.
  auto const combine = [&](block const& b) {
    result const& r = b.r;
    if (r.ok) {
      total.lines += r.lines;
      total.bytes += r.bytes;
      total.tail_bytes = r.tail_bytes;
      return true;
    }
    std::uint64_t const lines = total.lines, bytes = total.bytes;
    total = r;
    total.lines += lines;
    total.bytes += bytes;
    total.bad_line += b.first_line;
    total.bad_offset += b.offset;
    return false;
  };
  pipeline::run_ordered<block>(
      threads, 2 * std::size_t{threads}, [&](block& b) { return reader.next(&b); }, verify, combine);
  return total;
}

}  // namespace fizzgen::check
