// fizzgen random's payload (generators/random_bytes.hpp) against splitmix64 written out the
// obvious way, chunk by chunk: any chunk filled on its own holds its own slice of the sequence.

#include "generators/random_bytes.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace {

using fizzgen::random_bytes;

/// The first `bytes` bytes of the stream: splitmix64's outputs for `seed`, little-endian.
std::vector<unsigned char> reference(std::uint64_t seed, std::size_t bytes) {
  std::vector<unsigned char> out;
  std::uint64_t state = seed;
  while (out.size() < bytes) {
    state += 0x9e3779b97f4a7c15u;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    z ^= z >> 31;
    for (int b = 0; b < 8 && out.size() < bytes; ++b) out.push_back(static_cast<unsigned char>(z >> (8 * b)));
  }
  return out;
}

std::vector<unsigned char> fill(random_bytes const& g, std::uint64_t index) {
  std::vector<std::byte> buf(g.chunk_capacity() + 64, std::byte{0x5A});
  auto const c = g.plan(index);
  EXPECT_TRUE(c.has_value());
  std::size_t const n = g.fill(*c, std::span<std::byte>(buf.data(), g.chunk_capacity()));
  EXPECT_EQ(n, g.chunk_capacity());
  for (std::size_t i = n; i < buf.size(); ++i) EXPECT_EQ(buf[i], std::byte{0x5A}) << "wrote past the chunk at " << i;
  auto const* p = reinterpret_cast<unsigned char const*>(buf.data());
  return {p, p + n};
}

TEST(RandomBytes, TheFirstWordIsSplitmixsFirstOutput) {
  // A known answer: splitmix64 seeded with 7 starts 0x63cbe1e459320dd7.
  random_bytes const g(7, 64);
  std::vector<unsigned char> const first = fill(g, 0);
  EXPECT_EQ(std::vector<unsigned char>(first.begin(), first.begin() + 8),
            (std::vector<unsigned char>{0xd7, 0x0d, 0x32, 0x59, 0xe4, 0xe1, 0xcb, 0x63}));
}

TEST(RandomBytes, EveryChunkHoldsItsSliceOfTheSequence) {
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{7}, ~std::uint64_t{0}}) {
    for (std::size_t chunk : {std::size_t{8}, std::size_t{40}, std::size_t{4096}, std::size_t{65544}}) {
      random_bytes const g(seed, chunk);
      std::vector<unsigned char> const want = reference(seed, 7 * g.chunk_capacity());
      for (std::uint64_t i : {6u, 0u, 3u}) {  // out of order: each on its own
        std::vector<unsigned char> const got = fill(g, i);
        std::vector<unsigned char> const slice(
            want.begin() + static_cast<std::ptrdiff_t>(i * g.chunk_capacity()),
            want.begin() + static_cast<std::ptrdiff_t>((i + 1) * g.chunk_capacity()));
        EXPECT_EQ(got, slice) << "seed " << seed << ", chunk " << chunk << ", index " << i;
      }
    }
  }
}

TEST(RandomBytes, ChunksAreWholeWordsAndTheStreamEndless) {
  random_bytes const g(1, 1001);
  EXPECT_EQ(g.chunk_capacity(), 1000u);
  EXPECT_TRUE(g.plan(1u << 30).has_value());
  EXPECT_FALSE(g.constant());
}

}  // namespace
