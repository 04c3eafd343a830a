#include "generators/random_bytes.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "generators/splitmix.hpp"

namespace fizzgen {
namespace {

using splitmix::kGamma;
using splitmix::mix;

}  // namespace

random_bytes::random_bytes(std::uint64_t seed, std::size_t chunk_bytes) : seed_(seed) {
  plan_.lines_per_chunk = std::max<std::size_t>(1, chunk_bytes / 8);
}

std::size_t random_bytes::fill_at(chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept {
  static_assert(std::endian::native == std::endian::little, "words are written little-endian");
  std::uint64_t state = seed_ + (c.first_line + 1) * kGamma;
  std::byte* p = out.data() + at;
  // Four words per step: independent multiplies the compiler keeps in flight together.
  std::uint64_t j = 0;
  for (; j + 4 <= c.lines; j += 4, p += 32, state += 4 * kGamma) {
    std::uint64_t const w[4] = {mix(state), mix(state + kGamma), mix(state + 2 * kGamma), mix(state + 3 * kGamma)};
    std::memcpy(p, w, sizeof w);
  }
  for (; j < c.lines; ++j, p += 8, state += kGamma) {
    std::uint64_t const w = mix(state);
    std::memcpy(p, &w, 8);
  }
  return c.lines * 8;
}

}  // namespace fizzgen
