// Option value parsing: every accepted form and every rejected one, with the message naming it.

#include "cli/args.hpp"

#include "output/size_pattern.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <iterator>
#include <optional>
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

/// b^e + add, the plain way: e multiplications of a digit string by b, digit by digit.
std::string power_plus(unsigned b, unsigned e, unsigned add) {
  std::string n = "1";  // most significant digit first
  for (unsigned i = 0; i < e; ++i) {
    unsigned carry = 0;
    for (auto d = n.rbegin(); d != n.rend(); ++d) {
      unsigned const v = static_cast<unsigned>(*d - '0') * b + carry;
      *d = static_cast<char>('0' + v % 10);
      carry = v / 10;
    }
    for (; carry != 0; carry /= 10) n.insert(n.begin(), static_cast<char>('0' + carry % 10));
  }
  for (auto d = n.rbegin(); add != 0; ++d) {  // add < 10: one carry chain
    if (d == n.rend()) {
      n.insert(n.begin(), '0');
      d = std::prev(n.rend());
    }
    unsigned const v = static_cast<unsigned>(*d - '0') + add;
    *d = static_cast<char>('0' + v % 10);
    add = v / 10;
  }
  return n;
}

TEST(ArgsPositive, PowersWithAnOffset) {
  EXPECT_EQ(parse_positive("--from", "10^20"), "1" + std::string(20, '0'));
  EXPECT_EQ(parse_positive("--from", "2^64-1"), "18446744073709551615");
  EXPECT_EQ(parse_positive("--from", "2^64+1"), "18446744073709551617");
  EXPECT_EQ(parse_positive("--from", "2^64-0"), "18446744073709551616");
  EXPECT_EQ(parse_positive("--from", "10^30+7"), "1" + std::string(29, '0') + "7");
  EXPECT_EQ(parse_positive("--from", "10^30-1"), std::string(30, '9'));
  EXPECT_EQ(parse_positive("--from", "002^0003"), "8");
  EXPECT_EQ(parse_positive("--from", "7^0"), "1");
  EXPECT_EQ(parse_positive("--from", "0^0"), "1");
  EXPECT_EQ(parse_positive("--from", "1^99999999999999999999999"), "1");
  EXPECT_EQ(parse_positive("--from", "0^5+3"), "3");
  EXPECT_EQ(parse_positive("--from", "10^9-999999999"), "1");
  // Borrows and carries across the limbs of the arithmetic: 10^27 - 1 and 999999999^3 + 1.
  EXPECT_EQ(parse_positive("--from", "10^27-1"), std::string(27, '9'));
  EXPECT_EQ(parse_positive("--from", "999999999^3+1"), "999999997000000003000000000");
  // Long ones against repeated multiplication.
  EXPECT_EQ(parse_positive("--from", "3^4100+1"), power_plus(3, 4100, 1));
  EXPECT_EQ(parse_positive("--from", "7^1234+9"), power_plus(7, 1234, 9));
  EXPECT_EQ(parse_positive("--from", "2^1000"), power_plus(2, 1000, 0));
  // The most digits a power may have, and one more.
  EXPECT_EQ(parse_positive("--to", "10^19999").size(), kMaxPowerDigits);
  EXPECT_EQ(parse_positive("--to", "10^19999+" + std::string(30000, '9')).size(), 30001u);  // N: any length
  for (char const* text :
       {"10^20000", "10^20000-1", "2^66440", "99^99999999999999999999999", "2^99999999999999999999999"}) {
    std::string const msg = error_of([&] { parse_positive("--to", text); });
    EXPECT_NE(msg.find("--to: '" + std::string(text) + "' is too large"), std::string::npos) << msg;
  }
}

TEST(ArgsPositive, RejectsMalformedPowers) {
  for (char const* text : {"2^", "^5", "^", "2^5+", "2^5-", "2^-1", "2^+1", "9^9^9", "2^3 ", " 2^3", "2^3+-1", "2**3",
                           "2^3*2", "2^3+1+1", "2 ^3"}) {
    std::string const msg = error_of([&] { parse_positive("--from", text); });
    EXPECT_NE(msg.find(std::string("--from: '") + text + "' is not a positive whole number (digits, or a power"),
              std::string::npos)
        << msg;
  }
  for (char const* text : {"2^3-8", "2^3-9", "0^7", "0^1-1", "10^20-100000000000000000001"}) {
    std::string const msg = error_of([&] { parse_positive("--from", text); });
    EXPECT_NE(msg.find(std::string("'") + text + "' must be at least 1"), std::string::npos) << msg;
  }
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
  // Lower-case k and m are K and M; D is head's obsolescent spelling of B; Z and Y hold only 0.
  EXPECT_EQ(parse_size("--bytes", "10k"), 10240u);
  EXPECT_EQ(parse_size("--bytes", "1kB"), 1000u);
  EXPECT_EQ(parse_size("--bytes", "1kiB"), 1024u);
  EXPECT_EQ(parse_size("--bytes", "3m"), 3u << 20);
  EXPECT_EQ(parse_size("--bytes", "3mB"), 3000000u);
  EXPECT_EQ(parse_size("--bytes", "2KD"), 2000u);
  EXPECT_EQ(parse_size("--bytes", "0Z"), 0u);
  EXPECT_EQ(parse_size("--bytes", "0YiB"), 0u);
}

TEST(ArgsSize, RejectsOverflowAndBadSuffixes) {
  for (char const* text : {"16E",
                           "18446744073709551616",
                           "99999999999999999999K",
                           "",
                           "K",
                           "-1",
                           "5x",
                           "5KBB",
                           "5 K",
                           "1.5G",
                           "1Z",
                           "1YB",
                           "5g",
                           "5Ki",
                           "5KIB",
                           "5Kb",
                           "5bB",
                           "5B",
                           "5R",
                           "5Q",
                           "+5",
                           " 5",
                           "5 ",
                           "0x10",
                           "5k0"}) {
    std::string const msg = error_of([&] { parse_size("--count", text); });
    EXPECT_NE(msg.find("--count"), std::string::npos) << "accepted: " << text;
  }
}

/// The first line that `command` prints through /bin/sh, "" when it prints nothing.
std::string shell_line(std::string const& command) {
  std::FILE* p = ::popen(command.c_str(), "r");
  if (p == nullptr) return "";
  char buf[64] = {};
  std::string line = std::fgets(buf, sizeof buf, p) != nullptr ? buf : "";
  ::pclose(p);
  if (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

/// What GNU head -c makes of `text` (no single quotes in it): the byte count up to `counted` bytes
/// (read from /dev/zero), kAccepted when it takes a larger count (it reads /dev/null then), nullopt
/// when it refuses the text.
constexpr std::uint64_t kCounted = std::uint64_t{4} << 20;
constexpr std::uint64_t kAccepted = UINT64_MAX;
std::optional<std::uint64_t> head_reads(std::string const& text) {
  if (shell_line("head -c '" + text + "' /dev/null 2>/dev/null; echo $?") != "0") return std::nullopt;
  // Only a count that head took from a short text can be small; ask it for the first kCounted + 1
  // bytes of its output so that a large count costs nothing.
  std::string const n =
      shell_line("head -c '" + text + "' /dev/zero | head -c " + std::to_string(kCounted + 1) + " | wc -c");
  std::uint64_t const bytes = std::stoull(n);
  return bytes > kCounted ? kAccepted : bytes;
}

TEST(ArgsSize, ReadsSizesAsGnuHeadDoes) {
  if (shell_line("head --version 2>/dev/null").find("GNU coreutils") == std::string::npos)
    GTEST_SKIP() << "no GNU head here";
  std::vector<std::string> const texts{
      // every suffix, with and without B / iB, lower-case k and m
      "0", "17", "010", "2b", "1k", "10k", "10K", "1kB", "1KB", "1KiB", "1kiB", "1KD", "1kD", "1m", "1M", "1mB", "1MB",
      "1MiB", "1miB", "1MD", "3G", "3GB", "3GiB", "1T", "1TB", "1TiB", "1P", "1PB", "1PiB", "1E", "1EB", "1EiB", "0Z",
      "0ZB", "0Y", "0YiB", "000000000000000000000000000001K",
      // where 64 bits end, for each multiplier: the largest count it takes and the next one
      "18446744073709551615", "18446744073709551616", "36028797018963967b", "36028797018963968b", "18014398509481983K",
      "18014398509481984K", "18446744073709551KB", "18446744073709552KB", "17592186044415M", "17592186044416M",
      "18446744073709MB", "18446744073710MB", "17179869183G", "17179869184G", "18446744073GB", "18446744074GB",
      "16777215T", "16777216T", "18446744TB", "18446745TB", "16383P", "16384P", "18446PB", "18447PB", "15E", "16E",
      "15EiB", "16EiB", "18EB", "19EB", "1Z", "1ZB", "1Y", "1YiB",
      // junk
      "", "1Ki", "1KIB", "1kIB", "1Kb", "1kb", "1bB", "1bD", "1biB", "1B", "1g", "1t", "1e", "1w", "1c", "1R", "1Q",
      "5K0", "1k0", "1KiBB", "1GiBx", "1Gi", "1 K", "5 ", "0x10", "1.5K", "++5"};
  for (std::string const& text : texts) {
    std::optional<std::uint64_t> ours;
    try {
      ours = parse_size("--bytes", text);
    } catch (std::invalid_argument const&) {
    }
    std::optional<std::uint64_t> const head = head_reads(text);
    ASSERT_EQ(head.has_value(), ours.has_value()) << "'" << text << "': head and fizzgen disagree on taking it";
    if (ours) {
      EXPECT_EQ(*head, *ours > kCounted ? kAccepted : *ours) << "'" << text << "'";
    }
  }
  // The differences, on purpose: head's strtoumax skips leading blanks and a plus sign, and head
  // reads a suffix alone as 1 of it (K = 1024); such a size is more likely a slip than meant.
  for (std::string const text : {"+5", " 5", "+0", "K", "KB", "b", "MiB"}) {
    EXPECT_TRUE(head_reads(text).has_value()) << text;
    EXPECT_FALSE(error_of([&] { parse_size("--bytes", text); }).empty()) << text;
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
  size_pattern list(std::vector<std::size_t>{1, 4096, 7});
  for (std::size_t want : {1u, 4096u, 7u, 1u, 4096u, 7u}) EXPECT_EQ(list.next(), want);
  EXPECT_EQ(list.largest(), 4096u);
  size_pattern a(10, 20, 99), b(10, 20, 99), c(10, 20, 100);
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
