#include "verify/line_blocks.hpp"

#include <unistd.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cstring>
#include <system_error>

#include "verify/input.hpp"

namespace fizzgen::check {

std::uint64_t count_newlines(char const* p, std::size_t n) noexcept {
  std::uint64_t total = 0;
  std::size_t i = 0;
#if defined(__SSE2__)
  __m128i const nl = _mm_set1_epi8('\n');
  while (n - i >= 16) {
    // Each byte counter takes at most 255 steps before the counters are summed.
    std::size_t const steps = std::min<std::size_t>((n - i) / 16, 255);
    __m128i counts = _mm_setzero_si128();
    for (std::size_t s = 0; s < steps; ++s, i += 16)  // a match is -1: subtracting it counts it
      counts = _mm_sub_epi8(counts, _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<__m128i const*>(p + i)), nl));
    __m128i const sums = _mm_sad_epu8(counts, _mm_setzero_si128());  // two 64-bit sums
    total += static_cast<std::uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < n; ++i) total += p[i] == '\n' ? 1 : 0;
  return total;
}

bool line_block_reader::next(line_block* b) {
  if (done_) return false;
  std::size_t const need = carry_.size() + kLineBlock;
  if (b->capacity < need) {
    b->data = std::make_unique_for_overwrite<char[]>(need);
    b->capacity = need;
  }
  std::memcpy(b->data.get(), carry_.data(), carry_.size());
  std::size_t size = carry_.size();
  carry_.clear();
  bool eof = false;
  while (size < need) {
    ssize_t const n = read_input(fd_, b->data.get() + size, need - size);
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
  // time, unbounded memory). The block's checker is bound to fail by that line, since no valid line
  // is that long, and it sees the bytes the report shows, so the result is the sequential one.
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
  lines_ += count_newlines(begin, cut);
  offset_ += cut;
  done_ = eof || too_long;
  return true;
}

}  // namespace fizzgen::check
