// Option value parsing: every accepted form and every rejected one, with the message naming it.

#include "cli/args.hpp"

#include "engine/write_pattern.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace fizzgen::cli {
namespace {

/// The message of the invalid_argument that f throws, or "" when it does not throw.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (std::invalid_argument const& e) {
    return e.what();
  }
  return "";
}

TEST(ArgsPositive, AcceptsAnyLengthAndStripsLeadingZeros) {
  EXPECT_EQ(parse_positive("--from", "1"), "1");
  EXPECT_EQ(parse_positive("--from", "000123"), "123");
  std::string const big(400, '9');
  EXPECT_EQ(parse_positive("--from", big), big);
}

TEST(ArgsPositive, RejectsZeroSignsAndJunk) {
  for (char const* text : {"0", "000", "-5", "+5", "12abc", "", " 1", "1 ", "1e5", "0x10"}) {
    std::string const msg = error_of([&] { parse_positive("--from", text); });
    EXPECT_NE(msg.find("--from"), std::string::npos) << text;
    EXPECT_NE(msg.find(std::string("'") + text + "'"), std::string::npos) << msg;
  }
}

TEST(ArgsSize, GnuHeadSuffixes) {
  EXPECT_EQ(parse_size("--bytes", "0"), 0u);
  EXPECT_EQ(parse_size("--bytes", "17"), 17u);
  EXPECT_EQ(parse_size("--bytes", "2b"), 1024u);
  EXPECT_EQ(parse_size("--bytes", "512K"), 512u * 1024);
  EXPECT_EQ(parse_size("--bytes", "3KiB"), 3u * 1024);
  EXPECT_EQ(parse_size("--bytes", "3KB"), 3000u);
  EXPECT_EQ(parse_size("--bytes", "10G"), 10ull << 30);
  EXPECT_EQ(parse_size("--bytes", "2MB"), 2000000u);
  EXPECT_EQ(parse_size("--bytes", "1T"), 1ull << 40);
  EXPECT_EQ(parse_size("--bytes", "1P"), 1ull << 50);
  EXPECT_EQ(parse_size("--bytes", "15E"), 15ull << 60);
  EXPECT_EQ(parse_size("--count", "18446744073709551615"), UINT64_MAX);
}

TEST(ArgsSize, RejectsOverflowAndBadSuffixes) {
  for (char const* text :
       {"16E", "18446744073709551616", "99999999999999999999K", "", "K", "-1", "5x", "5k", "5KBB", "5 K", "1.5G"}) {
    std::string const msg = error_of([&] { parse_size("--count", text); });
    EXPECT_NE(msg.find("--count"), std::string::npos) << "accepted: " << text;
  }
}

TEST(ArgsThreads, Range) {
  EXPECT_EQ(parse_threads("1"), 1u);
  EXPECT_EQ(parse_threads("7"), 7u);
  EXPECT_EQ(parse_threads(std::to_string(kMaxThreads)), kMaxThreads);
  for (char const* text : {"0", "-1", "", "2x", "1025", "99999999999999999999"})
    EXPECT_NE(error_of([&] { parse_threads(text); }).find("--threads"), std::string::npos) << text;
}

TEST(ArgsRule, Parses) {
  rule_text const r = parse_rule("3:Fizz");
  EXPECT_EQ(r.divisor, 3u);
  EXPECT_EQ(r.word, "Fizz");
  // Everything after the first colon is the word, colons and spaces included.
  rule_text const odd = parse_rule("18446744073709551615:a: b");
  EXPECT_EQ(odd.divisor, UINT64_MAX);
  EXPECT_EQ(odd.word, "a: b");
}

TEST(ArgsRule, Rejects) {
  for (char const* text : {"0:X", "3:", "3", ":X", "x:Y", "-3:X", "18446744073709551616:X", "3:a\nb"}) {
    std::string const msg = error_of([&] { parse_rule(text); });
    EXPECT_NE(msg.find("--rule"), std::string::npos) << "accepted: " << text;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "an error must stay on one line: " << msg;
  }
}

TEST(ArgsDuration, UnitsAndFractions) {
  using std::chrono::nanoseconds;
  EXPECT_EQ(parse_duration("--duration", "500ms"), nanoseconds(500'000'000));
  EXPECT_EQ(parse_duration("--duration", "3s"), nanoseconds(3'000'000'000));
  EXPECT_EQ(parse_duration("--duration", "2m"), nanoseconds(120'000'000'000));
  EXPECT_EQ(parse_duration("--duration", "1h"), nanoseconds(3'600'000'000'000));
  EXPECT_EQ(parse_duration("--duration", "0.5"), nanoseconds(500'000'000));
  EXPECT_EQ(parse_duration("--duration", "7"), nanoseconds(7'000'000'000));
  EXPECT_EQ(parse_duration("--duration", ".25s"), nanoseconds(250'000'000));
  EXPECT_EQ(parse_duration("--duration", "1.5m"), nanoseconds(90'000'000'000));
  EXPECT_EQ(parse_duration("--duration", "2.5ms"), nanoseconds(2'500'000));
  EXPECT_EQ(parse_duration("--duration", "0.000000001"), nanoseconds(1));
  EXPECT_EQ(parse_duration("--duration", "1.0000000019"), nanoseconds(1'000'000'001));  // finer digits dropped
  EXPECT_EQ(parse_duration("--duration", "0"), nanoseconds(0));
  EXPECT_EQ(parse_duration("--duration", "1."), nanoseconds(1'000'000'000));
  EXPECT_EQ(parse_duration("--duration", "9223372036.854775807"), nanoseconds(INT64_MAX));
}

TEST(ArgsDuration, RejectsSignsJunkUnitsAndOverflow) {
  for (char const* text : {"",           "s",        ".",
                           "..5",        "1.2.3",    "-1",
                           "-1s",        "+1s",      " 1s",
                           "1s ",        "1 s",      "5x",
                           "5sec",       "5S",       "1d",
                           "1e3",        "5ms5",     "9223372036.854775808",
                           "9223372037", "2562048h", "99999999999999999999"}) {
    std::string const msg = error_of([&] { parse_duration("--duration", text); });
    EXPECT_EQ(msg.rfind("--duration: '", 0), 0u) << "accepted or badly refused: '" << text << "': " << msg;
  }
  EXPECT_EQ(error_of([&] { parse_duration("--duration", "3x"); }),
            "--duration: '3x' has an unknown unit (use ms, s, m or h; bare: seconds)");
}

TEST(ArgsWriteSizes, FixedListAndRange) {
  write_sizes_text const fixed = parse_write_sizes("4K");
  EXPECT_EQ(fixed.list, std::vector<std::uint64_t>{4096});
  write_sizes_text const list = parse_write_sizes("1,4096,7");
  EXPECT_EQ(list.list, (std::vector<std::uint64_t>{1, 4096, 7}));
  write_sizes_text const range = parse_write_sizes("random:1..64K");
  EXPECT_TRUE(range.list.empty());
  EXPECT_EQ(range.lo, 1u);
  EXPECT_EQ(range.hi, 65536u);
  EXPECT_EQ(parse_write_sizes("random:3..3").hi, 3u);
  for (char const* text : {"0", "", ",", "1,", ",1", "1,,2", "5x", "-1", "random:", "random:9..3", "random:0..3",
                           "random:5", "random:1..", "random:..5", "random:1..2..3", "1G", "random:1..1G"})
    EXPECT_EQ(error_of([&] { parse_write_sizes(text); }).rfind("--write-size: ", 0), 0u) << "accepted: " << text;
}

TEST(WritePattern, ListRepeatsAndSeedsReproduce) {
  write_pattern list(std::vector<std::size_t>{1, 4096, 7});
  for (std::size_t want : {1u, 4096u, 7u, 1u, 4096u, 7u}) EXPECT_EQ(list.next(), want);
  EXPECT_EQ(list.largest(), 4096u);
  write_pattern a(10, 20, 99), b(10, 20, 99), c(10, 20, 100);
  bool differs = false;
  std::vector<int> seen(21, 0);
  for (int i = 0; i < 2000; ++i) {
    std::size_t const x = a.next();
    ASSERT_GE(x, 10u);
    ASSERT_LE(x, 20u);
    ++seen[x];
    EXPECT_EQ(b.next(), x);
    differs |= c.next() != x;
  }
  EXPECT_TRUE(differs);
  for (std::size_t v = 10; v <= 20; ++v) EXPECT_GT(seen[v], 100) << v;  // about 182 each
  EXPECT_EQ(a.largest(), 20u);
}

}  // namespace
}  // namespace fizzgen::cli
