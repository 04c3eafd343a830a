// The yes generator against GNU yes's obvious definition: the words joined by single spaces (or
// "y"), one line repeated; chunks hold whole lines.

#include "generators/yes.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "oracle.hpp"

namespace {

using fizzgen::chunk;
using fizzgen::yes;
using words_t = std::vector<std::string>;

constexpr std::size_t kGuard = 256;
constexpr unsigned char kGuardByte = 0x5A;

/// Fills c into a buffer exactly chunk_capacity() long followed by guard bytes; checks the guard.
std::string fill_checked(fizzgen::generator const& g, chunk const& c) {
  std::size_t const cap = g.chunk_capacity();
  std::vector<std::byte> buf(cap + kGuard, std::byte{kGuardByte});
  std::size_t const n = g.fill(c, std::span<std::byte>(buf.data(), cap));
  EXPECT_LE(n, cap);
  EXPECT_TRUE(std::all_of(buf.begin() + static_cast<std::ptrdiff_t>(cap), buf.end(), [](std::byte b) {
    return b == std::byte{kGuardByte};
  })) << "fill wrote past chunk_capacity()";
  return std::string(reinterpret_cast<char const*>(buf.data()), std::min(n, cap));
}

std::string generate_all(fizzgen::generator const& g, std::uint64_t expected_lines) {
  std::string out;
  std::uint64_t next = 0;
  std::uint64_t i = 0;
  for (;; ++i) {
    auto const c = g.plan(i);
    if (!c) break;
    EXPECT_EQ(c->index, i);
    EXPECT_EQ(c->first_line, next);
    EXPECT_GT(c->lines, 0u);
    next += c->lines;
    out += fill_checked(g, *c);
    if (next > expected_lines) break;
  }
  EXPECT_EQ(next, expected_lines);
  return out;
}

TEST(Yes, DefaultIsY) {
  yes const g({});
  EXPECT_EQ(g.line(), "y\n");
  auto const c = g.plan(0);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(fill_checked(g, *c), oracle::yes_lines({}, c->lines));
}

TEST(Yes, WordsJoinedBySingleSpaces) {
  EXPECT_EQ(yes({"a", "b"}).line(), "a b\n");
  EXPECT_EQ(yes({"hello"}).line(), "hello\n");
  EXPECT_EQ(yes({"hello", "big", "world"}).line(), "hello big world\n");
  EXPECT_EQ(yes({"a  b", "c"}).line(), "a  b c\n");  // spaces inside a word are kept
  EXPECT_EQ(yes({"-n"}).line(), "-n\n");
}

TEST(Yes, EmptyWords) {
  EXPECT_EQ(yes({""}).line(), "\n");
  EXPECT_EQ(yes({"", "a"}).line(), " a\n");
  EXPECT_EQ(yes({"a", ""}).line(), "a \n");
  EXPECT_EQ(yes({"", ""}).line(), " \n");
  EXPECT_EQ(yes({"", "", ""}).line(), "  \n");
  EXPECT_EQ(yes({"a", "", "b"}).line(), "a  b\n");
  for (words_t const& w : {words_t{""}, words_t{"", "a"}, words_t{"a", ""}, words_t{"", "", ""}})
    EXPECT_EQ(yes(w).line(), oracle::yes_line(w));
}

TEST(Yes, IsConstant) {
  EXPECT_TRUE(yes({}).constant());
  EXPECT_TRUE(yes({"a", "b"}).constant());
  EXPECT_TRUE(yes({"x"}, 10, 4).constant());
}

TEST(Yes, ChunksHoldWholeLines) {
  for (words_t const& w : {words_t{}, words_t{"a", "b"}, words_t{"", "a"}, words_t{""}, words_t{"abcdefghij"},
                           words_t{std::string(1000, 'z')}}) {
    std::size_t const len = oracle::yes_line(w).size();
    for (std::size_t cb : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{100}, std::size_t{4096},
                           std::size_t{4099}, yes::kDefaultChunkBytes}) {
      yes const g(w, std::nullopt, cb);
      for (std::uint64_t i : {0u, 1u, 5u}) {
        auto const c = g.plan(i);
        ASSERT_TRUE(c.has_value());
        std::string const bytes = fill_checked(g, *c);
        EXPECT_EQ(bytes.size(), c->lines * len);
        EXPECT_EQ(bytes.size() % len, 0u);
        // At most chunk_bytes, unless a single line is longer than that.
        if (len <= cb)
          EXPECT_LE(bytes.size(), cb) << "line " << len << " chunk " << cb;
        else
          EXPECT_EQ(c->lines, 1u);
        // As many lines as fit.
        EXPECT_GT(bytes.size() + len, cb);
        EXPECT_EQ(oracle::first_difference(bytes, oracle::yes_lines(w, c->lines)), "");
      }
    }
  }
}

TEST(Yes, OneMebibyteLine) {
  std::string const word(std::size_t{1} << 20, 'q');
  words_t const w{word, "tail"};
  yes const g(w);
  EXPECT_EQ(g.line().size(), (std::size_t{1} << 20) + 6);
  auto const c = g.plan(0);
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->lines, 1u);
  std::string const bytes = fill_checked(g, *c);
  EXPECT_EQ(oracle::first_difference(bytes, oracle::yes_line(w)), "");
  // Chunk sizes that hold two and three such lines.
  for (std::size_t lines : {2u, 3u}) {
    yes const g2(w, 7, lines * g.line().size() + 5);
    EXPECT_EQ(oracle::first_difference(generate_all(g2, 7), oracle::yes_lines(w, 7)), "");
  }
}

TEST(Yes, TotalLinesLimit) {
  yes const g({"a"}, 10, 8);  // "a\n": 4 lines per 8-byte chunk
  ASSERT_TRUE(g.plan(0).has_value());
  EXPECT_EQ(g.plan(0)->lines, 4u);
  EXPECT_EQ(g.plan(1)->lines, 4u);
  ASSERT_TRUE(g.plan(2).has_value());
  EXPECT_EQ(g.plan(2)->lines, 2u);
  EXPECT_FALSE(g.plan(3).has_value());
  EXPECT_EQ(oracle::first_difference(generate_all(g, 10), oracle::yes_lines({"a"}, 10)), "");

  for (std::uint64_t count : {0u, 1u, 3u, 1000u, 12345u})
    for (std::size_t cb : {std::size_t{1}, std::size_t{64}, std::size_t{4096}})
      EXPECT_EQ(oracle::first_difference(generate_all(yes({"x", "yz"}, count, cb), count),
                                         oracle::yes_lines({"x", "yz"}, count)),
                "")
          << count << " lines, chunk " << cb;
}

TEST(Yes, RefillingTheSameBufferIsIdempotent) {
  yes const g({"ab"}, std::nullopt, 1000);
  std::size_t const cap = g.chunk_capacity();
  std::vector<std::byte> buf(cap);
  auto const c = g.plan(3);
  ASSERT_TRUE(c.has_value());
  std::size_t const n1 = g.fill(*c, buf);
  std::vector<std::byte> const first(buf.begin(), buf.begin() + static_cast<std::ptrdiff_t>(n1));
  std::size_t const n2 = g.fill(*g.plan(0), buf);
  EXPECT_EQ(n1, n2);
  EXPECT_TRUE(std::equal(first.begin(), first.end(), buf.begin()));
}

TEST(YesLineLength, FixedLengthCyclesTheText) {
  EXPECT_EQ(fizzgen::cycled_line("y", 1), "\n");
  EXPECT_EQ(fizzgen::cycled_line("y", 4), "yyy\n");
  EXPECT_EQ(fizzgen::cycled_line("hello world", 5), "hell\n");
  EXPECT_EQ(fizzgen::cycled_line("ab c", 11), "ab cab cab\n");
  for (std::size_t length : {std::size_t{1}, std::size_t{2}, std::size_t{7}, std::size_t{100}, std::size_t{4097}})
    for (std::string const text : {"y", "ab", "hello world"}) {
      EXPECT_EQ(fizzgen::cycled_line(text, length), oracle::cycled_line(text, length)) << text << " " << length;
      yes const g = yes::of_line(fizzgen::cycled_line(text, length), 777, 4096);
      EXPECT_TRUE(g.constant());
      std::string want;
      for (int i = 0; i < 777; ++i) want += oracle::cycled_line(text, length);
      EXPECT_EQ(oracle::first_difference(generate_all(g, 777), want), "") << text << " " << length;
    }
}

TEST(YesLineLength, RandomLengthsMatchTheOracle) {
  for (std::uint64_t seed : {std::uint64_t{0}, std::uint64_t{7}, std::uint64_t{0xdeadbeefcafe}})
    for (auto [lo, hi] : {std::pair<std::size_t, std::size_t>{1, 1}, {1, 2}, {1, 80}, {40, 41}, {100, 5000}})
      for (std::size_t cb : {std::size_t{1}, std::size_t{4096}, std::size_t{1} << 20}) {
        fizzgen::yes_random_lengths const g("hello world", lo, hi, seed, 3001, cb);
        EXPECT_FALSE(g.constant());
        EXPECT_EQ(oracle::first_difference(generate_all(g, 3001),
                                           oracle::yes_random_length_lines("hello world", lo, hi, seed, 3001)),
                  "")
            << "seed " << seed << ", " << lo << ".." << hi << ", chunk " << cb;
      }
}

TEST(YesLineLength, LengthsCoverTheRangeAndChangeWithTheSeed) {
  fizzgen::yes_random_lengths const a("y", 3, 6, 1), b("y", 3, 6, 2);
  std::vector<int> seen(7, 0);
  bool differ = false;
  for (std::uint64_t k = 0; k < 1000; ++k) {
    ASSERT_GE(a.length(k), 3u);
    ASSERT_LE(a.length(k), 6u);
    ++seen[a.length(k)];
    differ = differ || a.length(k) != b.length(k);
  }
  for (std::size_t n = 3; n <= 6; ++n) EXPECT_GT(seen[n], 150) << n;
  EXPECT_TRUE(differ);
}

}  // namespace
