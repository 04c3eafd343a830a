#pragma once
// The sizes of a run of write(2) or read(2) calls, one after another (--write-size, check
// --read-size): a fixed size, a repeating list, or sizes drawn uniformly from a range by a seeded
// generator of our own (splitmix64), so one seed gives the same sequence on every machine and
// every build.

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace fizzgen {

class size_pattern {
 public:
  /// A repeating list (a fixed size is a list of one); every size > 0.
  explicit size_pattern(std::vector<std::size_t> sizes) : sizes_(std::move(sizes)) {}
  /// Sizes from lo to hi inclusive (0 < lo <= hi), drawn with `seed`.
  size_pattern(std::size_t lo, std::size_t hi, std::uint64_t seed) noexcept : lo_(lo), hi_(hi), state_(seed) {}
  /// The list when it has sizes, else sizes from lo to hi drawn with `seed`: SIZES as
  /// parse_write_sizes (parse/values.hpp) reads them.
  size_pattern(std::vector<std::uint64_t> const& list, std::uint64_t lo, std::uint64_t hi, std::uint64_t seed)
      : sizes_(list.begin(), list.end()), lo_(lo), hi_(hi), state_(seed) {}

  /// The next call's size.
  std::size_t next() noexcept {
    if (!sizes_.empty()) {
      std::size_t const s = sizes_[at_];
      at_ = at_ + 1 == sizes_.size() ? 0 : at_ + 1;
      return s;
    }
    std::uint64_t const span = std::uint64_t{hi_ - lo_} + 1;     // hi_ < 2^63: no wrap
    return lo_ + static_cast<std::size_t>(splitmix64() % span);  // bias below 2^-30 for spans up to 2^34
  }

  /// The largest size next() can return.
  std::size_t largest() const noexcept {
    std::size_t m = hi_;
    for (std::size_t s : sizes_) m = s > m ? s : m;
    return m;
  }

 private:
  std::uint64_t splitmix64() noexcept {
    std::uint64_t z = (state_ += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }

  std::vector<std::size_t> sizes_;
  std::size_t at_ = 0;
  std::size_t lo_ = 0, hi_ = 0;
  std::uint64_t state_ = 0;
};

}  // namespace fizzgen
