// `fizzgen check` on every core: blocks of whole lines are read in order, each is verified by its
// own checker starting at the number its first line must have, and the results are combined in
// order. Only the newline count of each block is serial work, which vectorises to far more than a
// pipe delivers.

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <system_error>

#include "output/sys.hpp"
#include "pipeline/ordered.hpp"
#include "verify/check.hpp"

namespace fizzgen::check {
namespace {

constexpr std::size_t kBlock = std::size_t{4} << 20;

struct block {
  std::unique_ptr<char[]> data;  // capacity kBlock + the longest carried partial line
  std::size_t capacity = 0;
  std::size_t size = 0;
  std::uint64_t first_line = 0;  // index in the stream of its first line
  std::uint64_t offset = 0;      // byte offset of its first byte
  result r;
};

/// Reads the stream into blocks that end on a line boundary (but the last).
class block_reader {
 public:
  /// A partial line longer than `longest_carry` is not carried but ends the stream (see next()).
  block_reader(int fd, std::size_t longest_carry) : fd_(fd), longest_carry_(longest_carry) {}

  /// Reads the next block into b (a reused block keeps its buffer); false at the end.
  bool next(block* b) {
    if (done_) return false;
    std::size_t const need = carry_.size() + kBlock;
    if (b->capacity < need) {
      b->data = std::make_unique_for_overwrite<char[]>(need);
      b->capacity = need;
    }
    std::memcpy(b->data.get(), carry_.data(), carry_.size());
    std::size_t size = carry_.size();
    carry_.clear();
    bool eof = false;
    while (size < need) {
      ssize_t const n = sys::read(fd_, b->data.get() + size, need - size);
      if (n < 0) throw std::system_error(static_cast<int>(-n), std::generic_category(), "read");
      if (n == 0) {
        eof = true;
        break;
      }
      size += static_cast<std::size_t>(n);
    }
    // Cut after the last newline; the partial line opens the next block. A partial line too long
    // for any valid line stays in this block as its last, and reading stops: carried on, a
    // stream without '\n' would be copied block after block into an ever longer carry (quadratic
    // time, unbounded memory). Its checker is bound to fail by that line, since each valid line is
    // at most longest_line() bytes, and it sees the kShowMax bytes the report shows, so the result
    // is the sequential one.
    char const* begin = b->data.get();
    std::size_t cut = size;
    bool too_long = false;
    if (!eof) {
      auto const* nl = static_cast<char const*>(::memrchr(begin, '\n', size));
      cut = nl != nullptr ? static_cast<std::size_t>(nl - begin) + 1 : 0;
      too_long = size - cut > longest_carry_;
      if (too_long)
        cut = size;
      else
        carry_.assign(begin + cut, size - cut);
    }
    b->size = cut;
    b->first_line = lines_;
    b->offset = offset_;
    lines_ += static_cast<std::uint64_t>(std::count(begin, begin + cut, '\n'));
    offset_ += cut;
    done_ = eof || too_long;
    return true;
  }

 private:
  int fd_;
  std::size_t longest_carry_;
  std::string carry_;  // at most longest_carry_ bytes
  std::uint64_t lines_ = 0, offset_ = 0;
  bool done_ = false;
};

}  // namespace

result check_fd_parallel(int fd, options const& o, unsigned threads) {
  checker const validate(o);  // throws on bad options before any thread starts
  block_reader reader(fd, longest_line(o) + kShowMax);
  result total;
  auto const verify = [&](block& b) {
    options mine = o;
    mine.from = add_decimal(o.from, b.first_line);
    checker c(mine);
    c.feed({b.data.get(), b.size});
    b.r = c.finish();
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
