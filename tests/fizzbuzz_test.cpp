// The FizzBuzz generator against the line-at-a-time oracle: windows straddling every digit
// roll-over, 2^64, long starts, custom and large rules, tiny chunks, line limits, and fill() never
// writing past chunk_capacity().

#include "generators/fizzbuzz.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "generators/rule_template.hpp"
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

void expect_window(std::string const& from, oracle::rules const& rs, std::uint64_t count, std::size_t chunk_bytes,
                   fizzgen::kernel_arch const& arch = fizzgen::default_arch()) {
  fizzbuzz const g(dec(from), to_rules(rs), count, chunk_bytes, arch);
  std::string const got = generate_all(g, count);
  std::string const want = oracle::fizzbuzz_lines(from, rs, count);
  ASSERT_EQ(oracle::first_difference(got, want), "")
      << "from " << from << ", " << count << " lines, chunk_bytes " << chunk_bytes << ", arch " << arch.name;
}

/// The archs this CPU can run, scalar included.
std::vector<fizzgen::kernel_arch const*> available_archs() {
  std::vector<fizzgen::kernel_arch const*> out;
  for (auto const& a : fizzgen::kernel_archs())
    if (a.available) out.push_back(&a);
  return out;
}

TEST(FizzBuzz, FirstLinesClassic) {
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), 15);
  EXPECT_EQ(generate_all(g, 15), "1\n2\nFizz\n4\nBuzz\nFizz\n7\n8\nFizz\nBuzz\n11\nFizz\n13\n14\nFizzBuzz\n");
}

TEST(FizzBuzz, ClassicRulesAreThreeFizzFiveBuzz) { EXPECT_EQ(fizzgen::classic_rules(), to_rules(oracle::classic())); }

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
    expect_window(oracle::pow10(k), oracle::classic(), 25, 64);
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
    expect_window("1000000000", rs, 200, cb);                     // 10^9 + 7 inside
    expect_window("2000000000", rs, 200, cb);                     // 2 * (10^9 + 7) = 2000000014
    expect_window(std::to_string(big32 - 50), rs, 200, cb);       // big32 inside
    expect_window(std::to_string(3 * big32 - 100), rs, 200, cb);  // 3 * big32 inside
    expect_window(kTwo64Minus1, rs, 5, cb);                       // UINT64_MAX itself
    expect_window("36893488147419103200", rs, 100, cb);           // 2 * UINT64_MAX = ...230
    expect_window("1000000007000000049000000000", rs, 100, cb);   // a big multiple of 10^9+7
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
  for (std::uint64_t count : {1, 2, 9, 10, 14, 15, 16, 29, 30, 31, 99, 100, 101, 1000, 12345}) {
    for (std::size_t cb : {std::size_t{64}, std::size_t{100}, std::size_t{1000}}) {
      fizzbuzz const g(dec("1"), fizzgen::classic_rules(), count, cb);
      // Walk the plan: contiguous chunks, the last one partial, then nothing.
      std::uint64_t next = 0, i = 0;
      for (; next < count; ++i) {
        auto const c = g.plan(i);
        ASSERT_TRUE(c.has_value()) << "count " << count << " chunk " << i;
        EXPECT_EQ(c->first_line, next);
        ASSERT_GT(c->lines, 0u);
        EXPECT_LE(c->lines, g.lines_per_chunk());
        next += c->lines;
      }
      EXPECT_EQ(next, count);
      EXPECT_FALSE(g.plan(i).has_value());
      EXPECT_FALSE(g.plan(i + 1).has_value());
      EXPECT_FALSE(g.plan(UINT64_MAX).has_value());
      expect_window("1", oracle::classic(), count, cb);
    }
  }
}

TEST(FizzBuzz, ZeroLinesIsAnEmptyStream) {
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), std::uint64_t{0}, 64);
  EXPECT_FALSE(g.plan(0).has_value());
  EXPECT_FALSE(g.plan(1).has_value());
}

/// The largest chunk index the plan gives (the plan is a prefix of indices).
std::uint64_t last_chunk(fizzbuzz const& g) {
  std::uint64_t lo = 0, hi = UINT64_MAX;  // plan(lo) valid, answer in [lo, hi]
  EXPECT_TRUE(g.plan(0).has_value());
  if (g.plan(hi)) return hi;
  while (hi - lo > 1) {
    std::uint64_t const mid = lo + (hi - lo) / 2;
    (g.plan(mid) ? lo : hi) = mid;
  }
  return lo;
}

TEST(FizzBuzz, UnboundedPlanIsContiguousToTheEnd) {
  for (std::string const from : {"1", "98", "18446744073709551600", "1234567890123456789012345678901234567890"}) {
    for (std::size_t cb : {std::size_t{100}, std::size_t{4096}, fizzbuzz::kDefaultChunkBytes}) {
      fizzbuzz const g(dec(from), fizzgen::classic_rules(), std::nullopt, cb);
      ASSERT_GT(g.lines_per_chunk(), 0u);
      std::uint64_t const last = last_chunk(g);
      for (std::uint64_t i : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{1000}, last / 2, last - 1}) {
        auto const c = g.plan(i);
        auto const d = g.plan(i + 1);
        ASSERT_TRUE(c && d) << i;
        EXPECT_EQ(c->index, i);
        EXPECT_EQ(d->index, i + 1);
        EXPECT_EQ(c->first_line + c->lines, d->first_line) << "chunk " << i;
        EXPECT_GT(c->lines, 0u);
        EXPECT_LE(c->lines, g.lines_per_chunk());
      }
      // The stream covers line offsets up to 2^64 - 1 (exclusive), not past them.
      auto const end = g.plan(last);
      ASSERT_TRUE(end.has_value());
      EXPECT_EQ(end->first_line + end->lines, UINT64_MAX) << from << ", chunk " << cb;
    }
  }
}

TEST(FizzBuzz, ChunksNeverMixDigitWidthsAndStayNearChunkBytes) {
  for (std::string const from : {"1", "95", "99999999999999999000"}) {
    for (std::size_t cb : {std::size_t{1000}, std::size_t{4096}, std::size_t{65536}}) {
      std::uint64_t const count = 30000;
      fizzbuzz const g(dec(from), fizzgen::classic_rules(), count, cb);
      std::uint64_t bytes_total = 0, chunks = 0;
      for (std::uint64_t i = 0;; ++i) {
        auto const c = g.plan(i);
        if (!c) break;
        std::string const first = oracle::add(from, std::to_string(c->first_line));
        std::string const last = oracle::add(from, std::to_string(c->first_line + c->lines - 1));
        EXPECT_EQ(first.size(), last.size()) << "chunk " << i << " mixes widths: " << first << ".." << last;
        std::size_t const n = fill_checked(g, *c).size();
        // "About chunk_bytes": never more than twice, whatever the width.
        EXPECT_LE(n, 2 * cb) << "chunk " << i << " from " << from;
        bytes_total += n;
        ++chunks;
      }
      EXPECT_GT(chunks, 0u);
      // Whole chunks average near chunk_bytes (the edges of a width and the end are partial).
      EXPECT_GE(bytes_total * 2, (chunks - std::min<std::uint64_t>(chunks, 3)) * cb) << from << ", " << cb;
    }
  }
}

TEST(FizzBuzz, CapacityOfWholePeriodsIsTheirExactSize) {
  // Chunks of whole rule periods all take the same bytes at a width, so the buffer need not allow
  // for chunks of the longest lines only: a 512 KiB chunk's buffer stays under 1.1x of it (three to
  // a 2 MiB huge page), where the longest lines would ask 2.8x. fill_checked's guard bytes, here
  // and in every test of this file, check the bound is never passed.
  for (std::string const from : {"1", "95", "999999999999990"}) {
    fizzbuzz const g(dec(from), fizzgen::classic_rules(), std::nullopt, 512 * 1024);
    EXPECT_LT(g.chunk_capacity(), 512 * 1024 * 11 / 10) << from;
    for (std::uint64_t i : {0u, 1u, 2u, 7u}) (void)fill_checked(g, *g.plan(i));
  }
  // Custom rules of a short period are bounded the same way, on every arch, across widths; a
  // period longer than a chunk keeps the longest-line bound.
  oracle::rules const even_seven{{2, "Even"}, {7, "Seven"}};
  fizzbuzz const tight(dec("1"), to_rules(even_seven), std::nullopt, 65536);
  EXPECT_LT(tight.chunk_capacity(), 65536 * 11 / 10);
  for (fizzgen::kernel_arch const* a : available_archs()) expect_window("9990", even_seven, 40000, 4096, *a);
  fizzbuzz const wide(dec("1"), to_rules({{7919, "Prime"}, {104729, "Big"}}), std::nullopt, 4096);
  EXPECT_GE(wide.chunk_capacity(), wide.lines_per_chunk() * std::string("PrimeBig\n").size());
}

TEST(FizzBuzz, FarChunksOfAnUnboundedStream) {
  // Chunks whose first line is near 2^64 lines after the start: the widest numbers the
  // capacity must allow for, and residues computed from a huge line offset.
  for (std::string const from : {"1", "999999", "1234567890123456789012345678901234567890"}) {
    for (std::size_t cb : {std::size_t{64}, std::size_t{1000}}) {
      for (oracle::rules const& rs : {oracle::classic(), oracle::rules{{2, "a"}, {3, "bb"}, {7, "ccc"}},
                                      oracle::rules{{1000000007, "P"}, {(std::uint64_t{1} << 33) + 1, "Q"}}}) {
        fizzbuzz const g(dec(from), to_rules(rs), std::nullopt, cb);
        std::uint64_t const last = last_chunk(g);
        for (std::uint64_t idx : {last / 3, last / 2 + 7, last - 1, last}) {
          auto const c = g.plan(idx);
          ASSERT_TRUE(c.has_value()) << idx;
          std::string const first = oracle::add(from, std::to_string(c->first_line));
          ASSERT_EQ(oracle::first_difference(fill_checked(g, *c), oracle::fizzbuzz_lines(first, rs, c->lines)), "")
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

// ---- every vector kernel against the oracle ----------------------------------------------------
// The kernels write 30-line classic blocks starting at a number = 1 mod 30 and never across a
// digit roll-over, so these windows are long enough (hundreds of lines, chunks of hundreds of
// lines) for whole blocks on both sides of each roll-over.

namespace {

TEST(FizzBuzzArch, ListEndsWithScalarAndFindsByName) {
  auto const archs = fizzgen::kernel_archs();
  ASSERT_FALSE(archs.empty());
  EXPECT_EQ(archs.back().name, "scalar");
  EXPECT_TRUE(archs.back().available);
  for (auto const& a : archs) {
    EXPECT_EQ(fizzgen::find_arch(a.name), &a) << a.name;
    if (a.blocks != nullptr) {
      EXPECT_GT(a.max_prefix, 0u) << a.name;
    }
  }
  EXPECT_EQ(fizzgen::find_arch("no-such-arch"), nullptr);
  EXPECT_TRUE(fizzgen::default_arch().available);
  for (auto const* a : available_archs()) {
    fizzbuzz const g(dec("1"), fizzgen::classic_rules(), std::nullopt, 4096, *a);
    EXPECT_EQ(&g.arch(), a);
  }
}

// A kernel that counts its calls and the blocks it wrote, then delegates to the best real one:
// proves the windows below reach the vector path, not only the scalar edges around it.
std::uint64_t g_kernel_calls = 0;
std::uint64_t g_kernel_blocks = 0;
fizzgen::blocks_fn g_kernel_inner = nullptr;
char* counting_blocks(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept {
  ++g_kernel_calls;
  g_kernel_blocks += blocks;
  return g_kernel_inner(out, prefix, prefix_len, blocks);
}

TEST(FizzBuzzArch, WindowsReachTheVectorKernel) {
  fizzgen::kernel_arch const* best = nullptr;
  for (auto const* a : available_archs())
    if (a->blocks != nullptr && best == nullptr) best = a;
  if (best == nullptr) GTEST_SKIP() << "no vector kernel on this CPU";
  g_kernel_inner = best->blocks;
  fizzgen::kernel_arch counting = *best;
  counting.name = "counting";
  counting.blocks = counting_blocks;
  g_kernel_calls = g_kernel_blocks = 0;
  expect_window(oracle::pow10_minus(12, 95), oracle::classic(), 300, 4096, counting);
  EXPECT_GT(g_kernel_calls, 0u);
  EXPECT_GE(g_kernel_blocks, 6u);  // 300 lines with one roll-over: at least 6 whole blocks
  g_kernel_calls = g_kernel_blocks = 0;
  expect_window("1", oracle::classic(), 100000, fizzbuzz::kDefaultChunkBytes, counting);
  EXPECT_GE(g_kernel_blocks, 100000u / 30 - 10);
  // Custom rules never take the classic kernel.
  g_kernel_calls = 0;
  expect_window("1", oracle::rules{{3, "Fizz"}, {5, "Bazz"}}, 1000, 4096, counting);
  EXPECT_EQ(g_kernel_calls, 0u);
}

TEST(FizzBuzzArch, EveryDigitRollOverUpTo70Digits) {
  for (auto const* arch : available_archs()) {
    for (unsigned k = 1; k <= 70; ++k) {
      std::string const from = k <= 2 ? "1" : oracle::pow10_minus(k, 95);
      for (std::size_t cb : {std::size_t{1000}, std::size_t{4096}, fizzbuzz::kDefaultChunkBytes}) {
        expect_window(from, oracle::classic(), 300, cb, *arch);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(FizzBuzzArch, EveryDigitRollOverTo260DigitsAcrossEveryVectorCount) {
  // The kernels store a line as up to 256 bytes of vectors: every width where the line crosses a
  // vector boundary (SSE: every 16 bytes; AVX2: 32; AVX-512: 64, 128, 192), up to the scalar
  // hand-over at 255 digits and past it.
  for (auto const* arch : available_archs()) {
    for (unsigned k = 70; k <= 260; ++k) {
      expect_window(oracle::pow10_minus(k, 95), oracle::classic(), 300, 4096, *arch);
      if (HasFatalFailure()) return;
    }
  }
}

TEST(FizzBuzzArch, EveryPhaseModThirty) {
  // Starts at every residue mod 30, so chunks begin at every phase of the 30-line block.
  for (auto const* arch : available_archs()) {
    for (unsigned phase = 0; phase < 30; ++phase) {
      for (std::string const base : {"1000000", "123456789012345678900000", "18446744073709551000"}) {
        std::string const from = oracle::add(base, std::to_string(phase));
        for (std::size_t cb : {std::size_t{777}, std::size_t{4096}}) {
          expect_window(from, oracle::classic(), 500, cb, *arch);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(FizzBuzzArch, LongRunFromOne) {
  std::string const want = oracle::fizzbuzz_lines("1", 200000);
  for (auto const* arch : available_archs()) {
    for (std::size_t cb : {std::size_t{1000}, std::size_t{65536}, fizzbuzz::kDefaultChunkBytes}) {
      fizzbuzz const g(dec("1"), fizzgen::classic_rules(), 200000, cb, *arch);
      ASSERT_EQ(oracle::first_difference(generate_all(g, 200000), want), "") << arch->name << ", chunk " << cb;
    }
  }
}

TEST(FizzBuzzArch, FarChunksOfAnUnboundedStream) {
  for (auto const* arch : available_archs()) {
    for (std::string const from : {"1", "1234567890123456789012345678901234567890"}) {
      fizzbuzz const g(dec(from), fizzgen::classic_rules(), std::nullopt, 8192, *arch);
      std::uint64_t const last = last_chunk(g);
      for (std::uint64_t idx : {std::uint64_t{0}, std::uint64_t{12345}, last / 3, last / 2 + 7, last}) {
        auto const c = g.plan(idx);
        ASSERT_TRUE(c.has_value());
        std::string const first = oracle::add(from, std::to_string(c->first_line));
        ASSERT_EQ(
            oracle::first_difference(fill_checked(g, *c), oracle::fizzbuzz_lines(first, oracle::classic(), c->lines)),
            "")
            << arch->name << " from " << from << " chunk " << idx;
      }
    }
  }
}

TEST(FizzBuzzArch, SeededRandomWindows) {
  std::mt19937_64 rng(0xA4C4);
  for (int iter = 0; iter < 300; ++iter) {
    unsigned const k = 1 + static_cast<unsigned>(rng() % 66);
    std::string from;
    if (iter % 3 == 0 && k >= 3) {
      from = oracle::pow10_minus(k, 1 + rng() % 3000);
    } else {
      from += static_cast<char>('1' + rng() % 9);
      for (unsigned i = 1; i < k; ++i) from += static_cast<char>('0' + rng() % 10);
    }
    std::uint64_t const count = 1 + rng() % 3000;
    std::size_t const cb = 100 + rng() % 20000;
    for (auto const* arch : available_archs()) {
      expect_window(from, oracle::classic(), count, cb, *arch);
      if (HasFatalFailure()) return;
    }
  }
}

// Each kernel called directly, at every value of the prefix's last two digits and at block counts
// around the hundreds: a pair of blocks or a block whose prefixes cross a hundred takes other paths
// than one that stays below it, at every phase of that crossing. Near the top of the width
// (high digits all nines) the next hundred does not fit the width and must never be written.
TEST(FizzBuzzArch, KernelAtEveryPhaseOfTheHundred) {
  std::vector<fizzgen::kernel_arch const*> kernels;
  std::size_t widest = 0;
  for (auto const* arch : available_archs()) {
    if (arch->blocks != nullptr) kernels.push_back(arch), widest = std::max(widest, arch->max_prefix);
  }
  if (kernels.empty()) GTEST_SKIP() << "no vector kernel on this CPU";
  constexpr std::uint64_t kMostBlocks = 70;
  for (std::size_t len = 2; len <= std::min<std::size_t>(widest, 40); ++len) {
    for (unsigned t = 0; t < 100; ++t) {
      for (char const high : {'0', '9'}) {
        // The prefix (3k for the block from 30k+1): high digits, then t, made a multiple of three.
        std::string const digits = {static_cast<char>('0' + t / 10), static_cast<char>('0' + t % 10)};
        std::string prefix = std::string(len - 2, high) + digits;
        if (high == '0') prefix[0] = '1';
        while (oracle::mod(prefix, 3) != 0) prefix = oracle::add(prefix, "1");
        if (prefix.size() != len || prefix[0] == '0') continue;
        // The blocks whose next prefix still has len digits, as the callers use them.
        std::uint64_t room = kMostBlocks;
        if (len <= 18) {
          room = std::min<std::uint64_t>(room, (std::stoull(std::string(len, '9')) - std::stoull(prefix)) / 3);
        } else if (high == '9') {
          room = (99 - std::stoull(prefix.substr(len - 2))) / 3;
        }
        std::string const want = oracle::fizzbuzz_lines(prefix + "1", oracle::classic(), 30 * room);
        std::vector<std::size_t> ends(room + 1, 0);  // ends[b]: bytes of the first b blocks
        for (std::size_t i = 0, lines = 0; i < want.size(); ++i) {
          if (want[i] == '\n' && ++lines % 30 == 0) ends[lines / 30] = i + 1;
        }
        for (auto const* arch : kernels) {
          if (len > arch->max_prefix) continue;
          for (std::uint64_t const count : {1, 2, 3, 5, 16, 17, 33, 34, 35, 67, 70}) {
            std::uint64_t const blocks = std::min(count, room);
            if (blocks == 0) continue;
            std::vector<char> out(ends[blocks] + 256, '\x01');
            std::string p = prefix;
            char* const end = arch->blocks(out.data(), p.data(), len, blocks);
            std::string const at = std::string(arch->name) + " prefix " + prefix + " blocks " + std::to_string(blocks);
            ASSERT_EQ(static_cast<std::size_t>(end - out.data()), ends[blocks]) << at;
            ASSERT_EQ(oracle::first_difference(std::string(out.data(), ends[blocks]), want.substr(0, ends[blocks])), "")
                << at;
            ASSERT_EQ(p, oracle::add(prefix, std::to_string(3 * blocks))) << at;
          }
        }
      }
    }
  }
}

// The kernels store whole aligned vectors where they can: wherever the output starts (all 64
// phases), the bytes before it stay as they were, the output is the oracle's, and nothing is
// written more than a vector (64 bytes at most) past the returned end. Prefixes that cross a
// hundred (t near 99) in the first, a middle and the last block or pair of blocks, at the widths
// where the AVX-512 VBMI kernel changes its way (6, 17, 33 and 107 prefix digits).
TEST(FizzBuzzArch, KernelAtEveryOutputAlignment) {
  std::vector<fizzgen::kernel_arch const*> kernels;
  for (auto const* arch : available_archs())
    if (arch->blocks != nullptr) kernels.push_back(arch);
  if (kernels.empty()) GTEST_SKIP() << "no vector kernel on this CPU";
  int checked = 0;
  for (std::size_t const len : {2, 5, 6, 7, 10, 16, 17, 32, 33, 34, 59, 63, 64, 106, 107}) {
    for (unsigned const t : {0u, 93u, 96u, 97u, 99u}) {
      std::string prefix(len - 2, '0');  // high digits 10...0, then t
      if (!prefix.empty()) prefix[0] = '1';
      prefix.push_back(static_cast<char>('0' + t / 10));
      prefix.push_back(static_cast<char>('0' + t % 10));
      while (oracle::mod(prefix, 3) != 0) prefix = oracle::add(prefix, "1");
      if (prefix.size() != len || prefix[0] == '0') continue;
      // Only blocks whose next prefix keeps len digits, as the callers use them.
      std::uint64_t const room =
          len <= 18 ? (std::stoull(std::string(len, '9')) - std::stoull(prefix)) / 3 : std::uint64_t{1} << 40;
      for (std::uint64_t const count : {2u, 35u}) {
        std::uint64_t const blocks = std::min<std::uint64_t>(count, room);
        if (blocks == 0) continue;
        std::string const want = oracle::fizzbuzz_lines(prefix + "1", oracle::classic(), 30 * blocks);
        for (auto const* arch : kernels) {
          std::string p;
          std::string const found = oracle::at_every_phase(want, 64, [&](char* out) {
            p = prefix;
            return arch->blocks(out, p.data(), len, blocks);
          });
          std::string const at = std::string(arch->name) + " prefix " + prefix + " blocks " + std::to_string(blocks);
          ASSERT_EQ(found, "") << at;
          ASSERT_EQ(p, oracle::add(prefix, std::to_string(3 * blocks))) << at;
          ++checked;
        }
      }
    }
  }
  // Every width and phase above made some calls (a prefix that does not fit is skipped).
  EXPECT_GE(checked, 14 * 4 * static_cast<int>(kernels.size()));
}

}  // namespace

// ---- the custom-rules template kernel against the oracle ----------------------------------------
// It writes whole chunks of one width: line by line up to a multiple of Q = lcm(period, 10), then
// whole Q-line blocks of precomputed stores, then line by line again. So the windows below are long
// enough for whole blocks on both sides of a roll-over, and chunks are cut at many phases.

namespace {

/// Rule sets of short periods: the goal's examples, a 2000-line period, one whose Q is ten times
/// its period, words longer than a 16-byte vector, a single rule, and the longest period built.
std::vector<oracle::rules> template_rule_sets() {
  return {
      {{3, "Fizz"}, {5, "Buzz"}, {7, "Bazz"}},
      {{2, "Even"}, {7, "Seven"}},
      {{16, "Sixteen"}, {125, "Hundred"}},
      {{3, "a"}, {7, "bb"}, {11, "ccc"}},  // period 231, Q 2310
      {{2, "LONGWORDLONGWORDLONG"}, {3, "x"}},
      {{4, "Four"}},
      {{4096, "Big"}, {2, "e"}},
      {{1, "X"}},                             // period 1: no number at all
      {{2, "a"}, {4, "b"}, {8, "c"}},         // rules that share multiples
      {{5, std::string(70, 'w')}, {3, "x"}},  // a word line longer than any vector
      // More distinct bytes than a 64-byte permutation's constants hold, on lines a vector holds.
      {{3, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"}, {7, "!#$"}},
  };
}

/// The template of `rs` with every width's plans for lanes of `lane` bytes stored `vector` at a time.
fizzgen::rule_template planned(oracle::rules const& rs, std::size_t lane, std::size_t vector) {
  rule_set const rules = to_rules(rs);
  std::uint64_t period = 1;
  for (auto const& r : rules) period = std::lcm(period, r.divisor);
  auto t = fizzgen::rule_template::build(rules, period);
  EXPECT_TRUE(t.has_value());
  if (t) t->plan_widths(2, 70, vector, lane);
  return t.value_or(fizzgen::rule_template{});
}

// Counts the calls that reached the template kernel, then delegates to the best real one.
std::uint64_t g_template_calls = 0;
fizzgen::template_fn g_template_inner = nullptr;
char* counting_template(char* out, fizzgen::rule_template const& t, char const* number, std::size_t width,
                        std::uint64_t phase, std::uint64_t lines, std::byte* scratch) noexcept {
  char* const end = g_template_inner(out, t, number, width, phase, lines, scratch);
  if (end != nullptr) ++g_template_calls;
  return end;
}

TEST(FizzBuzzRules, TemplateKernelIsReachedOnlyForShortPeriods) {
  fizzgen::kernel_arch const* best = nullptr;
  for (auto const* a : available_archs())
    if (a->rules != nullptr && best == nullptr) best = a;
  if (best == nullptr) GTEST_SKIP() << "no vector arch on this CPU";
  g_template_inner = best->rules;
  fizzgen::kernel_arch counting = *best;
  counting.name = "counting";
  counting.rules = counting_template;
  for (oracle::rules const& rs : template_rule_sets()) {
    g_template_calls = 0;
    expect_window("999000", rs, 20000, 65536, counting);
    EXPECT_GT(g_template_calls, 0u) << rs.front().second;
    EXPECT_TRUE(fizzbuzz(dec("1"), to_rules(rs), std::nullopt, 65536, *best).uses_kernel());
  }
  // A period over rule_template::kMaxPeriod, and the scalar arch, keep the table path.
  g_template_calls = 0;
  expect_window("1", oracle::rules{{4099, "P"}, {2, "e"}}, 9000, 65536, counting);
  EXPECT_EQ(g_template_calls, 0u);
  EXPECT_FALSE(
      fizzbuzz(dec("1"), to_rules(oracle::rules{{4099, "P"}, {2, "e"}}), std::nullopt, 65536, counting).uses_kernel());
  EXPECT_FALSE(
      fizzbuzz(dec("1"), to_rules(oracle::rules{{3, "F"}}), std::nullopt, 65536, fizzgen::kernel_archs().back())
          .uses_kernel());
}

TEST(FizzBuzzRules, PermutationPlansCoverEveryWidthTheirConstantsFit) {
  oracle::rules const rules357{{3, "Fizz"}, {5, "Buzz"}, {7, "Bazz"}};
  for (std::size_t lane : {16, 64}) {
    fizzgen::rule_template const t = planned(rules357, lane, 64);
    // A 16-byte lane may hold the end of one number's prefix and the start of the next one's in
    // the same group, whose packed bytes a window holds only while the prefix fits the lane.
    std::size_t const widest = lane == 64 ? fizzgen::rule_template::kMaxPermuteWidth : lane + 1;
    for (std::size_t width = 2; width <= 70; ++width) {
      fizzgen::permute_plan const* plan = t.permute_for(width, lane);
      ASSERT_EQ(plan != nullptr, width <= widest) << width << " " << lane;
      if (plan == nullptr) continue;
      EXPECT_EQ(t.permute_for(width, lane == 16 ? 64 : 16), nullptr);
      // A block is whole lcm(105, 10) = 210-line blocks, at least kPermuteBlock bytes of them: the
      // oracle's bytes for as many lines of this width.
      EXPECT_EQ(plan->block_lines % 210, 0u);
      EXPECT_GE(plan->block_bytes, fizzgen::rule_template::kPermuteBlock / 2);
      if (width >= 5) {
        std::string ten_to_the(width, '0');
        ten_to_the[0] = '1';
        EXPECT_EQ(plan->block_bytes, oracle::fizzbuzz_lines(ten_to_the, rules357, plan->block_lines).size());
      }
      EXPECT_EQ(plan->line_offset.size(), plan->block_lines + 1);
      EXPECT_EQ(plan->window.size() * lane % 64, 0u);
    }
  }
  // 66 distinct bytes with the digits and the newline: no 64-byte constant source holds them,
  // 16-byte lanes OR them in.
  oracle::rules const many{{3, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"}, {7, "!#$"}};
  EXPECT_EQ(planned(many, 64, 64).permute_for(10, 64), nullptr);
  EXPECT_NE(planned(many, 16, 32).permute_for(10, 16), nullptr);
}

TEST(FizzBuzzRules, TemplateKernelEveryArchCutAtManyOffsets) {
  // Chunks of many sizes start a permuted block at every phase and end it anywhere.
  for (auto const* arch : available_archs()) {
    for (oracle::rules const& rs : {oracle::rules{{3, "Fizz"}, {5, "Buzz"}, {7, "Bazz"}},
                                    oracle::rules{{2, "Even"}, {7, "Seven"}}, oracle::rules{{1, "X"}}}) {
      for (std::string const& from : {std::string("999999000"), oracle::pow10_minus(20, 700)}) {
        for (std::size_t cb = 40; cb < 1400; cb += 37) {
          expect_window(from, rs, 1500, cb, *arch);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(FizzBuzzRules, TemplateKernelEveryArchAcrossRollOvers) {
  for (auto const* arch : available_archs()) {
    for (oracle::rules const& rs : template_rule_sets()) {
      for (unsigned k : {1u, 2u, 3u, 5u, 9u, 10u, 15u, 19u, 20u, 31u, 32u, 40u, 62u, 63u, 64u}) {
        std::string const from = k == 1 ? "1" : oracle::pow10_minus(k, 2500);
        for (std::size_t cb : {std::size_t{1000}, std::size_t{65536}}) {
          expect_window(from, rs, 6000, cb, *arch);
          if (HasFatalFailure()) return;
        }
      }
    }
  }
}

TEST(FizzBuzzRules, TemplateKernelEveryArchAcrossTwoToThe64) {
  for (auto const* arch : available_archs()) {
    for (oracle::rules const& rs : template_rule_sets()) {
      for (std::uint64_t back : {1, 17, 1000, 4321}) {
        std::string const start = to_string_u128((oracle::u128{1} << 64) - back);
        expect_window(start, rs, 2 * back + 3000, 4096, *arch);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(FizzBuzzRules, TemplateKernelEveryArchSeededRandom) {
  std::mt19937_64 rng(0x7E3A1);
  std::vector<std::string> const words{"Fizz", "Buzz", "a", "bb", "Seven", "Bazz", "LONGWORDLONGWORDLONGWORD"};
  for (int iter = 0; iter < 120; ++iter) {
    unsigned const k = 1 + static_cast<unsigned>(rng() % 40);
    std::string from;
    if (iter % 2 == 0 && k >= 3) {
      from = oracle::pow10_minus(k, 1 + rng() % 5000);  // straddles a roll-over
    } else {
      from += static_cast<char>('1' + rng() % 9);
      for (unsigned i = 1; i < k; ++i) from += static_cast<char>('0' + rng() % 10);
    }
    // Divisors whose lcm stays short: mostly small, sometimes up to 2000.
    oracle::rules rs;
    for (std::size_t r = 0, n = 1 + rng() % 3; r < n; ++r) {
      std::uint64_t const d = rng() % 4 == 0 ? 1 + rng() % 2000 : 1 + rng() % 12;
      rs.push_back({d, words[rng() % words.size()]});
    }
    std::uint64_t const count = 1 + rng() % 12000;
    std::size_t const cb = 64 + rng() % 100000;
    for (auto const* arch : available_archs()) {
      expect_window(from, rs, count, cb, *arch);
      if (HasFatalFailure()) return;
    }
  }
}

}  // namespace
