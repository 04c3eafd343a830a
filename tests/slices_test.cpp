// generator::fill_at: a chunk written in slices, one after another in one buffer, is the chunk
// fill() writes whole, for every generator the engine may fill in slices (every arch's FizzBuzz
// kernels with classic and custom rules, Morse FizzBuzz, random bytes, yes with random lengths),
// cut at seeded random lines and at every line of a few short chunks.

#include <gtest/gtest.h>

#include <cstddef>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "generators/arch.hpp"
#include "generators/decimal.hpp"
#include "generators/fizzbuzz.hpp"
#include "generators/morse_fizzbuzz.hpp"
#include "generators/random_bytes.hpp"
#include "generators/rules.hpp"
#include "generators/yes.hpp"

namespace {

using fizzgen::chunk;
using fizzgen::generator;

/// Chunk c written whole and written in slices that end at `cuts` (line counts from the chunk's
/// start, increasing, below c.lines): the same bytes, the same count.
void expect_slices_make_the_chunk(generator const& g, chunk const& c, std::vector<std::uint64_t> const& cuts,
                                  std::string const& what) {
  std::vector<std::byte> whole(g.chunk_capacity(), std::byte{0x55});
  std::vector<std::byte> sliced(g.chunk_capacity(), std::byte{0xAA});
  std::size_t const n = g.fill(c, whole);
  std::size_t at = 0;
  std::uint64_t begin = 0;
  std::vector<std::uint64_t> ends = cuts;
  ends.push_back(c.lines);
  for (std::uint64_t end : ends) {
    chunk const slice{c.index, c.first_line + begin, end - begin};
    at += g.fill_at(slice, sliced, at);
    begin = end;
  }
  ASSERT_EQ(at, n) << what << ", chunk " << c.index;
  EXPECT_TRUE(std::equal(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(n), sliced.begin()))
      << what << ", chunk " << c.index << ", " << cuts.size() + 1 << " slices";
}

/// The first chunks of g, each cut at seeded random lines, and the shortest of them at every line.
void expect_slices_work(generator const& g, std::string const& what) {
  std::mt19937_64 rng(20261201);
  for (std::uint64_t i = 0; i < 4; ++i) {
    std::optional<chunk> const c = g.plan(i);
    if (!c) break;
    if (c->lines < 2) continue;
    for (int round = 0; round < 3; ++round) {
      std::vector<std::uint64_t> cuts;
      for (std::uint64_t line = 1 + rng() % 40; line < c->lines; line += 1 + rng() % (c->lines / 3 + 1))
        cuts.push_back(line);
      expect_slices_make_the_chunk(g, *c, cuts, what);
    }
    if (c->lines <= 64) {
      std::vector<std::uint64_t> every;
      for (std::uint64_t line = 1; line < c->lines; ++line) every.push_back(line);
      expect_slices_make_the_chunk(g, *c, every, what + ", every line");
    }
  }
}

TEST(Slices, FizzBuzzOnEveryArchWithClassicAndCustomRules) {
  std::vector<std::pair<char const*, fizzgen::rule_set>> const rule_sets{
      {"classic", fizzgen::classic_rules()},
      {"3:Fizz 5:Buzz 7:Bazz", {{3, "Fizz"}, {5, "Buzz"}, {7, "Bazz"}}},
      {"1:X (period 1)", {{1, "X"}}},
      {"long words", {{2, std::string(40, 'w')}, {3, "x"}}},
  };
  for (fizzgen::kernel_arch const& arch : fizzgen::kernel_archs()) {
    if (!arch.available) continue;
    for (auto const& [name, rules] : rule_sets)
      for (char const* from : {"1", "999999950", "999999999999999990", "99999999999999999990"})
        for (std::size_t chunk_bytes : {std::size_t{600}, std::size_t{64 * 1024}}) {
          std::string const what = std::string(arch.name) + ", " + name + ", from " + from;
          expect_slices_work(fizzgen::fizzbuzz(*fizzgen::decimal::parse(from), rules, std::nullopt, chunk_bytes, arch),
                             what);
          expect_slices_work(
              fizzgen::morse_fizzbuzz(*fizzgen::decimal::parse(from), rules, std::nullopt, chunk_bytes, arch),
              "Morse, " + what);
        }
  }
}

TEST(Slices, RandomBytesAndYesWithRandomLengths) {
  expect_slices_work(fizzgen::random_bytes(7, 4096), "random bytes");
  expect_slices_work(fizzgen::yes_random_lengths("hello world", 1, 30, 9, std::nullopt, 4096), "yes, lengths 1..30");
}

}  // namespace
