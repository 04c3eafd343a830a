// The FizzBuzz generator against the line-at-a-time oracle: windows straddling every digit
// roll-over, 2^64, long starts, custom and large rules, tiny chunks, line limits, and fill() never
// writing past chunk_capacity().

#include "generators/fizzbuzz.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "oracle.hpp"

namespace {

using fizzgen::chunk;
using fizzgen::decimal;
using fizzgen::fizzbuzz;
using fizzgen::rule_set;

constexpr char kTwo64Minus1[] = "18446744073709551615";
constexpr std::size_t kGuard = 256;
constexpr unsigned char kGuardByte = 0xA5;
constexpr std::size_t kChunkSizes[] = {1, 64, 100, 1000, fizzbuzz::kDefaultChunkBytes};

decimal dec(std::string const& s) {
  auto d = decimal::parse(s);
  EXPECT_TRUE(d.has_value()) << s;
  return d.value_or(decimal{});
}

std::string to_string_u128(oracle::u128 v) {
  std::string s;
  do {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  } while (v != 0);
  return s;
}

rule_set to_rules(oracle::rules const& rs) {
  rule_set out;
  for (auto const& [d, w] : rs) out.push_back({d, w});
  return out;
}

/// Fills chunk c into a buffer exactly chunk_capacity() long followed by guard bytes, checks the
/// guard is untouched and the count fits, and returns the bytes written.
std::string fill_checked(fizzbuzz const& g, chunk const& c) {
  std::size_t const cap = g.chunk_capacity();
  std::vector<std::byte> buf(cap + kGuard, std::byte{kGuardByte});
  std::size_t const n = g.fill(c, std::span<std::byte>(buf.data(), cap));
  EXPECT_LE(n, cap) << "chunk " << c.index;
  for (std::size_t i = cap; i < buf.size(); ++i) {
    if (buf[i] != std::byte{kGuardByte}) {
      ADD_FAILURE() << "fill wrote past chunk_capacity() at offset " << i - cap << " of chunk " << c.index;
      break;
    }
  }
  return std::string(reinterpret_cast<char const*>(buf.data()), std::min(n, cap));
}

/// Every planned chunk, in order, concatenated; checks the plan's invariants along the way.
std::string generate_all(fizzbuzz const& g, std::uint64_t expected_lines) {
  std::string out;
  std::uint64_t next_line = 0;
  std::uint64_t i = 0;
  for (;; ++i) {
    std::optional<chunk> const c = g.plan(i);
    if (!c) break;
    EXPECT_EQ(c->index, i);
    EXPECT_EQ(c->first_line, next_line);
    EXPECT_GT(c->lines, 0u);
    EXPECT_LE(c->lines, g.lines_per_chunk());
    next_line += c->lines;
    std::string const bytes = fill_checked(g, *c);
    // Every chunk holds whole lines.
    EXPECT_EQ(static_cast<std::uint64_t>(std::count(bytes.begin(), bytes.end(), '\n')), c->lines);
    EXPECT_TRUE(!bytes.empty() && bytes.back() == '\n');
    out += bytes;
    if (next_line > expected_lines) break;  // a runaway plan must not loop forever
  }
  EXPECT_EQ(next_line, expected_lines);
  EXPECT_FALSE(g.plan(i + 1).has_value());
  return out;
}

void expect_window(std::string const& from, oracle::rules const& rs, std::uint64_t count, std::size_t chunk_bytes) {
  fizzbuzz const g(dec(from), to_rules(rs), count, chunk_bytes);
  std::string const got = generate_all(g, count);
  std::string const want = oracle::fizzbuzz_lines(from, rs, count);
  ASSERT_EQ(got, want) << "from " << from << ", " << count << " lines, chunk_bytes " << chunk_bytes;
}

TEST(FizzBuzz, FirstLinesClassic) {
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), 15);
  EXPECT_EQ(generate_all(g, 15), "1\n2\nFizz\n4\nBuzz\nFizz\n7\n8\nFizz\nBuzz\n11\nFizz\n13\n14\nFizzBuzz\n");
}

TEST(FizzBuzz, ClassicRulesAreThreeFizzFiveBuzz) {
  EXPECT_EQ(fizzgen::classic_rules(), to_rules(oracle::classic()));
}

TEST(FizzBuzz, EveryDigitRollOverUpTo10Pow25) {
  for (unsigned k = 1; k <= 25; ++k) {
    std::string const from = k == 1 ? "1" : oracle::pow10_minus(k, 20);
    for (std::size_t cb : kChunkSizes) expect_window(from, oracle::classic(), 40, cb);
  }
}

TEST(FizzBuzz, EveryDigitRollOverCustomRules) {
  oracle::rules const rs{{2, "a"}, {3, "bb"}, {7, "ccc"}};
  for (unsigned k = 1; k <= 25; ++k) {
    std::string const from = k == 1 ? "1" : oracle::pow10_minus(k, 20);
    for (std::size_t cb : {std::size_t{64}, std::size_t{100}, std::size_t{1000}}) expect_window(from, rs, 40, cb);
  }
}

TEST(FizzBuzz, StartingExactlyAtPowersOfTenAndBelow) {
  for (unsigned k = 1; k <= 22; ++k) {
    expect_window("1" + std::string(k, '0'), oracle::classic(), 25, 64);
    expect_window(std::string(k, '9'), oracle::classic(), 25, 100);
  }
}

TEST(FizzBuzz, AcrossTwoToThe64) {
  for (std::uint64_t back : {1, 2, 15, 30, 100}) {
    std::string const start = to_string_u128((oracle::u128{1} << 64) - back);
    for (std::size_t cb : kChunkSizes) expect_window(start, oracle::classic(), 2 * back + 10, cb);
  }
  for (std::size_t cb : kChunkSizes) {
    expect_window(kTwo64Minus1, oracle::classic(), 50, cb);
    expect_window("18446744073709551616", oracle::classic(), 50, cb);
    expect_window("18446744073709551585", oracle::rules{{2, "a"}, {3, "bb"}, {7, "ccc"}}, 60, cb);
  }
}

TEST(FizzBuzz, FortyDigitStart) {
  std::string const from = "1234567890123456789012345678901234567890";
  for (std::size_t cb : kChunkSizes) {
    expect_window(from, oracle::classic(), 300, cb);
    expect_window(from, oracle::rules{{2, "a"}, {3, "bb"}, {7, "ccc"}}, 300, cb);
  }
  for (std::size_t cb : kChunkSizes) expect_window(oracle::pow10_minus(40, 20), oracle::classic(), 40, cb);
}

TEST(FizzBuzz, SingleRuleDividingEverything) {
  for (std::size_t cb : kChunkSizes) {
    expect_window("1", oracle::rules{{1, "X"}}, 100, cb);
    expect_window("99999999999999999999999", oracle::rules{{1, "X"}}, 100, cb);
  }
}

TEST(FizzBuzz, LargeDivisors) {
  std::uint64_t const big32 = (std::uint64_t{1} << 32) + 15;
  std::uint64_t const prime = 1000000007;
  oracle::rules const rs{{prime, "P"}, {big32, "Q"}, {UINT64_MAX, "M"}, {3, "Fizz"}};
  for (std::size_t cb : {std::size_t{64}, std::size_t{1000}}) {
    // Windows around multiples of each divisor, below and past 2^64.
    expect_window("1000000000", rs, 200, cb);                                   // 10^9 + 7 inside
    expect_window("2000000000", rs, 200, cb);                                   // 2 * (10^9 + 7) = 2000000014
    expect_window(std::to_string(big32 - 50), rs, 200, cb);                     // big32 inside
    expect_window(std::to_string(3 * big32 - 100), rs, 200, cb);                // 3 * big32 inside
    expect_window(kTwo64Minus1, rs, 5, cb);                                     // UINT64_MAX itself
    expect_window("36893488147419103200", rs, 100, cb);                         // 2 * UINT64_MAX = ...230
    expect_window("1000000007000000049000000000", rs, 100, cb);                 // a big multiple of 10^9+7
  }
  ASSERT_EQ(oracle::mod("36893488147419103230", UINT64_MAX), 0u);
  ASSERT_EQ(oracle::mod("2000000014", prime), 0u);
}

TEST(FizzBuzz, LongWordsLongerThanChunk) {
  std::string const w1(300, 'w');
  std::string const w2(500, 'v');
  oracle::rules const rs{{2, w1}, {3, w2}};
  for (std::size_t cb : {std::size_t{1}, std::size_t{64}, std::size_t{1000}, std::size_t{5000}}) {
    expect_window("1", rs, 50, cb);
    expect_window("99999999999999999990", rs, 50, cb);
  }
}

TEST(FizzBuzz, TotalLinesLimit) {
  for (std::uint64_t count : {1, 2, 14, 15, 16, 29, 30, 31, 99, 100, 101, 1000}) {
    for (std::size_t cb : {std::size_t{64}, std::size_t{100}, std::size_t{1000}}) {
      fizzbuzz const g(dec("1"), fizzgen::classic_rules(), count, cb);
      std::uint64_t const lpc = g.lines_per_chunk();
      std::uint64_t const chunks = (count + lpc - 1) / lpc;
      for (std::uint64_t i = 0; i < chunks; ++i) {
        auto const c = g.plan(i);
        ASSERT_TRUE(c.has_value()) << i;
        EXPECT_EQ(c->lines, i + 1 < chunks ? lpc : count - i * lpc) << "count " << count << " chunk " << i;
      }
      EXPECT_FALSE(g.plan(chunks).has_value());
      EXPECT_FALSE(g.plan(chunks + 1).has_value());
      EXPECT_FALSE(g.plan(UINT64_MAX).has_value());
      expect_window("1", oracle::classic(), count, cb);
    }
  }
}

TEST(FizzBuzz, ZeroLinesIsAnEmptyStream) {
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), std::uint64_t{0}, 64);
  EXPECT_FALSE(g.plan(0).has_value());
}

TEST(FizzBuzz, UnboundedPlanKeepsGoing) {
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), std::nullopt, 100);
  std::uint64_t const lpc = g.lines_per_chunk();
  ASSERT_GT(lpc, 0u);
  for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1000}, std::uint64_t{1} << 40}) {
    auto const c = g.plan(i);
    ASSERT_TRUE(c.has_value());
    EXPECT_EQ(c->index, i);
    EXPECT_EQ(c->first_line, i * lpc);
    EXPECT_EQ(c->lines, lpc);
  }
}

TEST(FizzBuzz, FarChunksOfAnUnboundedStream) {
  // Chunks whose first line is near 2^64 lines after the start: the widest numbers the
  // capacity must allow for, and residues computed from a huge line offset.
  for (std::string const from : {"1", "999999", "1234567890123456789012345678901234567890"}) {
    for (std::size_t cb : {std::size_t{64}, std::size_t{1000}}) {
      for (oracle::rules const& rs : {oracle::classic(), oracle::rules{{2, "a"}, {3, "bb"}, {7, "ccc"}},
                                      oracle::rules{{1000000007, "P"}, {(std::uint64_t{1} << 33) + 1, "Q"}}}) {
        fizzbuzz const g(dec(from), to_rules(rs), std::nullopt, cb);
        std::uint64_t const lpc = g.lines_per_chunk();
        std::uint64_t const last = (UINT64_MAX - 1) / lpc;  // the last chunk with a first line < 2^64 - 1
        for (std::uint64_t idx : {last / 3, last / 2 + 7, last - 1, last}) {
          auto const c = g.plan(idx);
          ASSERT_TRUE(c.has_value()) << idx;
          std::string const first = oracle::add(from, std::to_string(c->first_line));
          ASSERT_EQ(fill_checked(g, *c), oracle::fizzbuzz_lines(first, rs, c->lines))
              << "from " << from << " chunk " << idx << " first line " << c->first_line;
        }
      }
    }
  }
}

TEST(FizzBuzz, FillIsAPureFunctionOfTheChunk) {
  fizzbuzz const g(dec("999999999999999"), fizzgen::classic_rules(), 5000, 100);
  auto const c7 = g.plan(7);
  auto const c3 = g.plan(3);
  ASSERT_TRUE(c7 && c3);
  std::string const a = fill_checked(g, *c7);
  std::string const b = fill_checked(g, *c3);
  EXPECT_EQ(fill_checked(g, *c7), a);
  EXPECT_EQ(fill_checked(g, *c3), b);
  EXPECT_NE(a, b);
}

TEST(FizzBuzz, SeededRandomWindows) {
  std::mt19937_64 rng(0xF1220);
  std::vector<std::string> const words{"Fizz", "Buzz", "a", "bb", "ccc", "Bazz", "x", "LONGWORDLONGWORD"};
  for (int iter = 0; iter < 400; ++iter) {
    // A start that is often just below a power of ten, sometimes anywhere.
    std::string from;
    unsigned const k = 1 + static_cast<unsigned>(rng() % 32);
    if (iter % 2 == 0 && k >= 2) {
      from = oracle::pow10_minus(k, 1 + rng() % 50);
    } else {
      from += static_cast<char>('1' + rng() % 9);
      for (unsigned i = 1; i < k; ++i) from += static_cast<char>('0' + rng() % 10);
    }
    oracle::rules rs;
    std::size_t const n_rules = 1 + rng() % 4;
    for (std::size_t r = 0; r < n_rules; ++r) {
      std::uint64_t d = 1 + rng() % 16;
      if (rng() % 8 == 0) d = 1 + rng() % 100000;
      if (rng() % 16 == 0) d = rng() | 1;
      rs.push_back({d, words[rng() % words.size()]});
    }
    std::uint64_t const count = 1 + rng() % 300;
    std::size_t const cb = 1 + rng() % 2000;
    expect_window(from, rs, count, cb);
    if (HasFatalFailure()) return;
  }
}

}  // namespace
