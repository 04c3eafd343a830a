// fizzgen check against streams built here the obvious way, one line at a time; nothing from
// generators/ so that the judge and the judged never share a bug.

#include "verify/check.hpp"
#include "verify/line_blocks.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <system_error>
#include <thread>
#include <vector>

namespace {

using fizzgen::check::checker;
using fizzgen::check::options;
using fizzgen::check::result;
using fizzgen::check::rule;

__extension__ typedef unsigned __int128 u128;  // GNU type; __extension__ keeps -Wpedantic quiet

std::vector<rule> classic() { return {{3, "Fizz"}, {5, "Buzz"}}; }

// ---- The reference: one line at a time -------------------------------------------------------

std::string line_u64(std::uint64_t n, std::vector<rule> const& rules) {
  std::string line;
  for (rule const& r : rules)
    if (n % r.divisor == 0) line += r.word;
  return line.empty() ? std::to_string(n) : line;
}

/// Lines for from, from + 1, ... (from + count must stay below 2^64).
std::string reference_u64(std::uint64_t from, std::vector<rule> rules, std::size_t count) {
  if (rules.empty()) rules = classic();
  std::string out;
  for (std::uint64_t n = from; n < from + count; ++n) out += line_u64(n, rules) + "\n";
  return out;
}

void increment(std::string& n) {
  std::size_t i = n.size();
  while (i > 0 && n[i - 1] == '9') n[--i] = '0';
  if (i == 0)
    n.insert(n.begin(), '1');
  else
    ++n[i - 1];
}

std::uint64_t mod(std::string const& n, std::uint64_t d) {
  u128 r = 0;
  for (char c : n) r = (r * 10 + static_cast<unsigned>(c - '0')) % d;
  return static_cast<std::uint64_t>(r);
}

/// Lines for from, from + 1, ... with from a decimal string of any length.
std::string reference(std::string from, std::vector<rule> rules, std::size_t count) {
  if (rules.empty()) rules = classic();
  std::string out;
  for (std::size_t k = 0; k < count; ++k, increment(from)) {
    std::string line;
    for (rule const& r : rules)
      if (mod(from, r.divisor) == 0) line += r.word;
    out += (line.empty() ? from : line) + "\n";
  }
  return out;
}

std::vector<std::string> split_lines(std::string_view s) {
  std::vector<std::string> lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (s[i] == '\n') {
      lines.emplace_back(s.substr(start, i - start));
      start = i + 1;
    }
  return lines;
}

// Byte offset where line `index` (0-based) starts.
std::uint64_t offset_of_line(std::string_view s, std::size_t index) {
  std::size_t pos = 0;
  for (std::size_t k = 0; k < index; ++k) pos = s.find('\n', pos) + 1;
  return pos;
}

options make(std::string from, std::vector<rule> rules = {}) {
  options o;
  o.from = std::move(from);
  o.rules = std::move(rules);
  return o;
}

result check_whole(options const& o, std::string_view s) {
  checker c(o);
  c.feed(s);
  return c.finish();
}

// Feeds pieces of `piece` bytes, stopping when the checker wants no more.
result check_pieces(options const& o, std::string_view s, std::size_t piece) {
  checker c(o);
  for (std::size_t i = 0; i < s.size(); i += piece)
    if (!c.feed(s.substr(i, piece))) break;
  return c.finish();
}

void expect_pass(options const& o, std::string const& s) {
  result const r = check_whole(o, s);
  EXPECT_TRUE(r.ok) << "from " << o.from << ": line " << r.bad_line << " expected '" << r.expected << "' got '"
                    << r.actual << "'";
  EXPECT_EQ(r.lines, split_lines(s).size());
  EXPECT_EQ(r.bytes, s.size());
  EXPECT_EQ(check_pieces(o, s, 4093), r);  // a prime piece size cuts lines everywhere
}

// ---- The reference itself ---------------------------------------------------------------------

TEST(CheckReference, StringAndU64Agree) {
  EXPECT_EQ(reference("1", {}, 100), reference_u64(1, {}, 100));
  EXPECT_EQ(reference("18446744073709551000", {{7, "x"}, {3, "y"}}, 600),
            reference_u64(18446744073709551000u, {{7, "x"}, {3, "y"}}, 600));
  EXPECT_EQ(reference("1", {}, 15), "1\n2\nFizz\n4\nBuzz\nFizz\n7\n8\nFizz\nBuzz\n11\nFizz\n13\n14\nFizzBuzz\n");
}

// ---- Correct streams pass ---------------------------------------------------------------------

TEST(CheckPass, EmptyInput) {
  result const r = check_whole(make("1"), "");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.lines, 0u);
  EXPECT_EQ(r.bytes, 0u);
}

TEST(CheckPass, ClassicFromOneAcrossRollOvers) {
  expect_pass(make("1"), reference_u64(1, {}, 200000));  // 9→10 ... 99999→100000
}

TEST(CheckPass, CustomRules) {
  std::vector<rule> const rules{{2, "a"}, {7, "bb"}, {3, "c"}};
  expect_pass(make("1", rules), reference_u64(1, rules, 50000));
  expect_pass(make("999990", rules), reference_u64(999990, rules, 100));
}

TEST(CheckPass, StartsInEveryDigitCount) {
  std::string nines = "9";
  for (int digits = 1; digits <= 40; ++digits, nines += '9') {
    std::string from = nines;
    for (int k = 0; k < 7; ++k) from.back() = static_cast<char>(from.back() - 1);  // 10^d - 8
    if (from == "2") from = "1";
    expect_pass(make(from), reference(from, {}, 40));
  }
}

TEST(CheckPass, Near1e20) {
  expect_pass(make("99999999999999999000"), reference("99999999999999999000", {}, 2000));
  expect_pass(make("100000000000000000000"), reference("100000000000000000000", {}, 1000));
}

TEST(CheckPass, Past2To64) {
  // 2^64 = 18446744073709551616 sits in this window.
  expect_pass(make("18446744073709551610"), reference("18446744073709551610", {}, 1000));
  std::vector<rule> const rules{{2, "a"}, {7, "bb"}, {3, "c"}};
  expect_pass(make("18446744073709551610", rules), reference("18446744073709551610", rules, 1000));
}

TEST(CheckPass, ThirtyFiveDigits) {
  std::string const from = "12345678901234567890123456789012345";
  expect_pass(make(from), reference(from, {}, 1000));
  std::string const nines = "99999999999999999999999999999999990";
  expect_pass(make(nines, {{4, "Four"}, {6, "Six"}}), reference(nines, {{4, "Four"}, {6, "Six"}}, 100));
}

TEST(CheckPass, HundredsOfDigits) {
  std::string const from(300, '9');
  expect_pass(make(from), reference(from, {}, 100));
}

TEST(CheckPass, LargePeriodUsesResidues) {
  // lcm beyond the lookup table: the checker counts a residue per rule instead.
  std::vector<rule> const a{{3, "Fizz"}, {5, "Buzz"}, {65537, "Big"}};
  expect_pass(make("1", a), reference_u64(1, a, 140000));
  std::vector<rule> const b{{1000003, "x"}, {999983, "y"}, {3, "z"}};
  expect_pass(make("999982999990", b), reference_u64(999982999990u, b, 3000));
  std::vector<rule> const max{{18446744073709551615u, "Max"}, {2, "Two"}};
  expect_pass(make("18446744073709551600", max), reference("18446744073709551600", max, 100));
  expect_pass(make("36893488147419103200", max), reference("36893488147419103200", max, 100));  // 2 (2^64 - 1)
}

TEST(CheckPass, DivisorOneAndLongWords) {
  expect_pass(make("1", {{1, "x"}}), reference_u64(1, {{1, "x"}}, 100));
  std::vector<rule> const long_words{{3, "FizzFizzFizzFizzFizz"}, {5, "BuzzBuzzBuzzBuzzBuzzBuzz"}};
  expect_pass(make("1", long_words), reference_u64(1, long_words, 10000));
}

TEST(CheckPass, WordsOfEveryLength) {
  // Lines around the 16- and 32-byte compares of the fast path.
  for (std::size_t n = 1; n <= 40; ++n) {
    std::vector<rule> const rules{{3, std::string(n, 'w')}, {5, std::string(n + 1, 'v')}};
    expect_pass(make("1", rules), reference_u64(1, rules, 300));
  }
}

// ---- Any split gives the same result ----------------------------------------------------------

TEST(CheckSplit, EverySplitPointGivesTheSameResult) {
  std::string const good = reference_u64(90, {}, 120);  // crosses 99→100
  std::string bad = good;
  bad[bad.size() / 2] = 'x';
  std::string const cut_ok = good + "Fi";  // 210 is FizzBuzz
  std::string const cut_bad = good + "Fu";
  for (std::string const& s : {good, bad, cut_ok, cut_bad, good + "\n", good + std::string(300, 'y')}) {
    result const whole = check_whole(make("90"), s);
    for (std::size_t i = 0; i <= s.size(); ++i) {
      checker c(make("90"));
      if (c.feed(std::string_view(s).substr(0, i))) c.feed(std::string_view(s).substr(i));
      ASSERT_EQ(c.finish(), whole) << "split at " << i;
    }
    EXPECT_EQ(check_pieces(make("90"), s, 1), whole);
  }
}

TEST(CheckSplit, RandomPiecesGiveTheSameResult) {
  std::mt19937_64 rng(42);
  std::string const from = "18446744073709550000";
  std::string s = reference(from, {}, 5000);
  s[s.size() - 1000] = '7';
  result const whole = check_whole(make(from), s);
  ASSERT_FALSE(whole.ok);
  for (int round = 0; round < 50; ++round) {
    checker c(make(from));
    for (std::size_t i = 0; i < s.size();) {
      std::size_t const n = rng() % 40;
      c.feed(std::string_view(s).substr(i, n));
      i += n;
    }
    ASSERT_EQ(c.finish(), whole);
  }
}

// ---- Mismatches are found at the first bad line -----------------------------------------------

TEST(CheckFail, EveryChangedByteIsFoundAtItsLine) {
  // Short and long numbers, so that words, last digits, high digits and newlines all get hit.
  for (std::string from : {"1", "999999990", "1234567890123456789012340"}) {
    std::string const good = reference(from, {}, 120);
    for (std::size_t i = 0; i < good.size(); ++i) {
      std::string bad = good;
      bad[i] = bad[i] == 'x' ? 'y' : 'x';
      std::size_t const line = static_cast<std::size_t>(std::count(good.begin(), good.begin() + i, '\n'));
      result const r = check_whole(make(from), bad);
      ASSERT_FALSE(r.ok) << from << " byte " << i;
      EXPECT_EQ(r.bad_line, line + 1) << from << " byte " << i;
      EXPECT_EQ(r.bad_offset, offset_of_line(good, line)) << from << " byte " << i;
      EXPECT_EQ(r.lines, line);
      EXPECT_EQ(r.bytes, r.bad_offset);
      EXPECT_EQ(r.expected, split_lines(good)[line]);
    }
  }
}

TEST(CheckFail, ReportsTheLine) {
  std::string s = reference_u64(1, {}, 20);
  s.replace(s.find("FizzBuzz"), 8, "15");
  result const r = check_whole(make("1"), s);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad_line, 15u);
  EXPECT_EQ(r.bad_offset, 49u);
  EXPECT_EQ(r.expected, "FizzBuzz");
  EXPECT_EQ(r.actual, "15");
  EXPECT_EQ(r.reason, "wrong line");
}

TEST(CheckFail, DroppedLine) {
  std::string const good = reference_u64(1000, {}, 50);
  std::string s = good;
  std::uint64_t const at = offset_of_line(good, 20);
  s.erase(at, offset_of_line(good, 21) - at);
  result const r = check_whole(make("1000"), s);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad_line, 21u);
  EXPECT_EQ(r.bad_offset, at);
  EXPECT_EQ(r.expected, split_lines(good)[20]);
  EXPECT_EQ(r.actual, split_lines(good)[21]);
}

TEST(CheckFail, DuplicatedLine) {
  std::string const good = reference_u64(1000, {}, 50);
  std::string s = good;
  std::uint64_t const at = offset_of_line(good, 20);
  s.insert(at, split_lines(good)[20] + "\n");
  result const r = check_whole(make("1000"), s);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad_line, 22u);
  EXPECT_EQ(r.bad_offset, offset_of_line(good, 21));
  EXPECT_EQ(r.actual, split_lines(good)[20]);
}

TEST(CheckFail, WrongStart) {
  result const r = check_whole(make("4"), reference_u64(5, {}, 10));
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad_line, 1u);
  EXPECT_EQ(r.bad_offset, 0u);
  EXPECT_EQ(r.expected, "4");
  EXPECT_EQ(r.actual, "Buzz");
  // Off by a multiple of the period: the words agree, the numbers do not.
  EXPECT_FALSE(check_whole(make("16"), reference_u64(31, {}, 10)).ok);
  std::string const big = "100000000000000000000000000000000001";
  EXPECT_FALSE(check_whole(make(big), reference("100000000000000000000000000000000016", {}, 10)).ok);
}

TEST(CheckFail, EmptyLine) {
  std::string s = reference_u64(1, {}, 20);
  s.insert(offset_of_line(s, 9), "\n");
  result const r = check_whole(make("1"), s);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad_line, 10u);
  EXPECT_EQ(r.expected, "Buzz");
  EXPECT_EQ(r.actual, "");
  EXPECT_EQ(r.reason, "empty line");
  EXPECT_FALSE(check_whole(make("1"), "\n").ok);
}

TEST(CheckFail, ExtraBytes) {
  std::string const good = reference_u64(1, {}, 20);
  EXPECT_FALSE(check_whole(make("1"), good + "garbage\n").ok);
  EXPECT_FALSE(check_whole(make("1"), good + "21\n").ok);  // 21 is Fizz
  EXPECT_FALSE(check_whole(make("1"), good + "Fizz \n").ok);
  EXPECT_FALSE(check_whole(make("1"), good + "Fizz\r\n").ok);
  EXPECT_FALSE(check_whole(make("1"), good + std::string("Fizz\0\n", 6)).ok);
}

TEST(CheckFail, TrailingGarbageWithoutNewline) {
  std::string const good = reference_u64(1, {}, 20);
  result const r = check_whole(make("1"), good + "xyz");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad_line, 21u);
  EXPECT_EQ(r.bad_offset, good.size());
  EXPECT_EQ(r.actual, "xyz");
  EXPECT_EQ(r.reason, "wrong cut-off final line");
}

TEST(CheckFail, LongBadLineIsTruncated) {
  result const r = check_whole(make("1"), "1\n" + std::string(500, 'x') + "\n");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.bad_line, 2u);
  EXPECT_EQ(r.actual, std::string(200, 'x'));
  EXPECT_TRUE(r.actual_truncated);
  result const exact = check_whole(make("1"), "1\n" + std::string(200, 'x') + "\n");
  EXPECT_EQ(exact.actual, std::string(200, 'x'));
  EXPECT_FALSE(exact.actual_truncated);
}

TEST(CheckFail, LaterFeedsAreIgnored) {
  checker c(make("1"));
  EXPECT_TRUE(c.feed("1\n2\n"));
  EXPECT_FALSE(c.feed("4\n"));  // the report is complete at its '\n'
  EXPECT_FALSE(c.feed("5\n6\n"));
  result const r = c.finish();
  EXPECT_EQ(r.bad_line, 3u);
  EXPECT_EQ(r.actual, "4");
}

TEST(CheckFail, MatchesTheFirstDifferentLineOnRandomEdits) {
  std::mt19937_64 rng(7);
  std::vector<std::vector<rule>> const rule_sets{{},
                                                 {{2, "a"}, {7, "bb"}, {3, "c"}},
                                                 {{65537, "B"}, {3, "F"}},
                                                 {{7, "Seven"}},
                                                 {{2, "a"}},
                                                 {{4, "Four"}, {6, "Six"}},
                                                 {{3, std::string(40, 'L')}, {5, "Buzz"}}};
  for (int round = 0; round < 1000; ++round) {
    // Starts just below a power of ten, so that windows cross a change of digit count.
    std::uint64_t power = 1;
    for (auto k = rng() % 20; k-- > 0;) power *= 10;
    std::uint64_t const from = power > 200 ? power - rng() % 200 : 1 + rng() % 200;
    auto const& rules = rule_sets[round % rule_sets.size()];
    std::string const good = reference_u64(from, rules, 300);
    auto const want = split_lines(reference_u64(from, rules, 320));  // room for inserted lines
    std::string bad = good;
    std::size_t const at = rng() % bad.size();
    switch (rng() % 3) {
      case 0:
        bad[at] = " 0123456789\nFizBu"[rng() % 17];
        break;
      case 1:
        bad.erase(at, 1 + rng() % 12);
        break;
      default:
        bad.insert(at, good.substr(rng() % good.size(), 1 + rng() % 12));
        break;
    }
    // The judge by hand: the first complete line that differs, else the unterminated tail.
    auto const got = split_lines(bad);
    std::size_t first = 0;
    while (first < got.size() && got[first] == want[first]) ++first;
    std::string const tail = bad.substr(bad.rfind('\n') + 1);  // npos + 1 == 0: all of it
    bool const passes =
        first == got.size() && want[first].compare(0, tail.size(), tail) == 0 && tail.size() <= want[first].size();
    result const r = check_whole(make(std::to_string(from), rules), bad);
    ASSERT_EQ(r.ok, passes) << round;
    if (passes) continue;
    EXPECT_EQ(r.bad_line, first + 1) << round;
    EXPECT_EQ(r.bad_offset, offset_of_line(bad, first)) << round;
    EXPECT_EQ(r.expected, want[first]) << round;
  }
}

// ---- A cut-off final line ---------------------------------------------------------------------

TEST(CheckCutOff, PrefixOfTheExpectedLinePasses) {
  std::string const good = reference_u64(1, {}, 14);  // line 15 is FizzBuzz
  for (std::string tail : {"F", "Fizz", "FizzB", "FizzBuzz"}) {
    result const r = check_whole(make("1"), good + tail);
    EXPECT_TRUE(r.ok) << tail;
    EXPECT_EQ(r.lines, 14u);
    EXPECT_EQ(r.tail_bytes, tail.size());
    EXPECT_EQ(r.bytes, good.size() + tail.size());
  }
  EXPECT_TRUE(check_whole(make("123457"), "12345").ok);
}

TEST(CheckCutOff, OtherTailsFail) {
  std::string const good = reference_u64(1, {}, 14);
  for (std::string tail : {"Fizz\n", "Buzz", "FizzBuzzz", "1", "15", "f"}) {
    result const r = check_whole(make("1"), good + tail);
    EXPECT_FALSE(r.ok) << tail;
    EXPECT_EQ(r.bad_line, 15u) << tail;
  }
  EXPECT_FALSE(check_whole(make("123457"), "12346").ok);
}

// ---- Options ----------------------------------------------------------------------------------

TEST(CheckOptions, BadOptionsThrow) {
  for (std::string from : {"", "0", "012", "12a", "-1", "+1"})
    EXPECT_THROW(checker{make(from)}, std::invalid_argument) << from;
  EXPECT_THROW(checker(make("1", {{0, "x"}})), std::invalid_argument);
  EXPECT_THROW(checker(make("1", {{3, ""}})), std::invalid_argument);
  EXPECT_THROW(checker(make("1", {{3, "a\nb"}})), std::invalid_argument);
}

// ---- check_fd and check_main ------------------------------------------------------------------

struct temp_file {
  std::FILE* f = std::tmpfile();
  ~temp_file() { std::fclose(f); }
  int fd() const { return fileno(f); }
  void write(std::string_view s) {
    std::fwrite(s.data(), 1, s.size(), f);
    std::fflush(f);
    std::rewind(f);
  }
  std::string read() {
    std::fflush(f);
    std::rewind(f);
    std::string out;
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    return out;
  }
};

TEST(CheckFd, File) {
  std::string const s = reference_u64(1, {}, 300000);
  temp_file in;
  in.write(s);
  result const r = fizzgen::check::check_fd(in.fd(), make("1"));
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.bytes, s.size());
  EXPECT_EQ(r.lines, 300000u);
}

TEST(CheckFd, PipeFromAThread) {
  std::string s = reference("18446744073709000000", {}, 400000);
  auto const old_handler = std::signal(SIGPIPE, SIG_IGN);  // the reader stops early on a bad line
  for (bool corrupt : {false, true}) {
    if (corrupt) s[s.size() - 77] = '#';
    int fds[2];
    ASSERT_EQ(pipe(fds), 0);
    std::thread writer([&] {
      // Small odd writes so that lines are cut across reads.
      for (std::size_t i = 0; i < s.size();) {
        ssize_t const n = ::write(fds[1], s.data() + i, std::min<std::size_t>(s.size() - i, 65521));
        if (n <= 0) break;  // EPIPE once the reader stopped
        i += static_cast<std::size_t>(n);
      }
      close(fds[1]);
    });
    result const r = fizzgen::check::check_fd(fds[0], make("18446744073709000000"));
    close(fds[0]);
    writer.join();
    EXPECT_EQ(r, check_whole(make("18446744073709000000"), s));
    EXPECT_EQ(r.ok, !corrupt);
  }
  std::signal(SIGPIPE, old_handler);
}

TEST(CheckFd, ReadErrorThrows) { EXPECT_THROW(fizzgen::check::check_fd(-1, make("1")), std::system_error); }

struct main_run {
  int status;
  std::string out, err;
};

main_run run_main(options const& o, std::string_view input) {
  temp_file in, out, err;
  in.write(input);
  int const status = fizzgen::check::check_main(o, in.fd(), out.f, err.f);
  return {status, out.read(), err.read()};
}

TEST(CheckMain, Ok) {
  main_run const m = run_main(make("1"), reference_u64(1, {}, 1000));
  EXPECT_EQ(m.status, 0);
  EXPECT_EQ(m.out, "fizzgen check: OK: 1000 lines, 4673 bytes\n");
  EXPECT_EQ(m.err, "");
}

TEST(CheckMain, OneLineIsSingular) {
  EXPECT_EQ(run_main(make("1"), "1\n").out, "fizzgen check: OK: 1 line, 2 bytes\n");
  EXPECT_EQ(run_main(make("1"), "1\n2").out, "fizzgen check: OK: 1 line, 3 bytes (final line cut off after 1 byte)\n");
}

TEST(CheckMain, OkWithCutOffLine) {
  main_run const m = run_main(make("1"), reference_u64(1, {}, 14) + "Fizz");
  EXPECT_EQ(m.status, 0);
  EXPECT_EQ(m.out, "fizzgen check: OK: 14 lines, 53 bytes (final line cut off after 4 bytes)\n");
}

TEST(CheckMain, BadLine) {
  std::string s = reference_u64(1, {}, 20);
  s.replace(s.find("FizzBuzz"), 8, "15");
  main_run const m = run_main(make("1"), s);
  EXPECT_EQ(m.status, 1);
  EXPECT_EQ(m.out, "");
  EXPECT_EQ(m.err, "fizzgen check: line 15 (byte offset 49): expected 'FizzBuzz', got '15'\n");
}

TEST(CheckMain, ReasonsAndEscapes) {
  EXPECT_EQ(run_main(make("1"), "1\n\n").err,
            "fizzgen check: line 2 (byte offset 2): expected '2', got '' (empty line)\n");
  EXPECT_EQ(run_main(make("1"), "1\n2\nFi\x01z'\n").err,
            "fizzgen check: line 3 (byte offset 4): expected 'Fizz', got 'Fi\\x01z\\x27'\n");
  EXPECT_EQ(run_main(make("1"), "1\n2\nFizx").err,
            "fizzgen check: line 3 (byte offset 4): expected 'Fizz', got 'Fizx' (wrong cut-off final line)\n");
  main_run const m = run_main(make("1"), std::string(300, 'z'));
  EXPECT_EQ(m.err, "fizzgen check: line 1 (byte offset 0): expected '1', got '" + std::string(200, 'z') + "...'\n");
}

TEST(CheckMain, ReadErrorIsARuntimeFailure) {
  temp_file out, err;
  EXPECT_EQ(fizzgen::check::check_main(make("1"), -1, out.f, err.f), 1);
  EXPECT_EQ(err.read().rfind("fizzgen check: read: ", 0), 0u) << err.read();
}

// ---- What must arrive: --count, --to, --bytes --------------------------------------------------

options expecting(std::optional<std::uint64_t> lines, std::optional<std::uint64_t> bytes) {
  options o = make("1");
  o.lines = lines;
  o.bytes = bytes;
  return o;
}

TEST(CheckLength, ExactLinesPassLessOrMoreFail) {
  std::string const s = reference_u64(1, {}, 1000);  // 4673 bytes
  EXPECT_EQ(run_main(expecting(1000, {}), s).out, "fizzgen check: OK: 1000 lines, 4673 bytes\n");
  main_run const cut = run_main(expecting(1000, {}), reference_u64(1, {}, 10));
  EXPECT_EQ(cut.status, 1);
  EXPECT_EQ(cut.out, "");
  EXPECT_EQ(cut.err,
            "fizzgen check: expected 1000 lines, received 10 lines, 35 bytes: the stream ends early, at line 11 "
            "(byte offset 35)\n");
  EXPECT_EQ(run_main(expecting(999, {}), s).err,
            "fizzgen check: expected 999 lines, received 1000 lines, 4673 bytes: more than expected, from line 1000\n");
  // A cut-off line after the lines asked for is more; one inside them is less.
  EXPECT_EQ(run_main(expecting(1000, {}), s + "10").status, 1);
  EXPECT_EQ(run_main(expecting(1000, {}), s.substr(0, s.size() - 1)).err,
            "fizzgen check: expected 1000 lines, received 999 lines, 4672 bytes (the last line cut off after 4 "
            "bytes): the stream ends early, at line 1000 (byte offset 4672)\n");
}

TEST(CheckLength, ExactBytes) {
  std::string const s = reference_u64(1, {}, 1000);
  for (std::size_t n : {std::size_t{1}, std::size_t{4}, std::size_t{100}, s.size()}) {
    main_run const m = run_main(expecting({}, n), s.substr(0, n));
    EXPECT_EQ(m.status, 0) << n << ": " << m.err;
    EXPECT_EQ(run_main(expecting({}, n + 1), s.substr(0, n)).status, 1) << n;
    EXPECT_EQ(run_main(expecting({}, n - 1), s.substr(0, n)).status, 1) << n;
  }
  EXPECT_EQ(run_main(expecting({}, 5000), s).err,
            "fizzgen check: expected 5000 bytes, received 1000 lines, 4673 bytes: the stream ends early, at line 1001 "
            "(byte offset 4673)\n");
  EXPECT_EQ(run_main(expecting({}, 4000), s).err,
            "fizzgen check: expected 4000 bytes, received 1000 lines, 4673 bytes: more than expected, from byte "
            "offset 4000\n");
}

TEST(CheckLength, LinesAndBytesWhicheverEndsFirst) {
  std::string const s = reference_u64(1, {}, 1000);
  EXPECT_EQ(run_main(expecting(1000, 100), s.substr(0, 100)).status, 0);            // the bytes end it
  EXPECT_EQ(run_main(expecting(10, 1 << 20), reference_u64(1, {}, 10)).status, 0);  // the lines end it
  EXPECT_EQ(run_main(expecting(10, 35), reference_u64(1, {}, 10)).status, 0);       // both at once
  EXPECT_EQ(run_main(expecting(10, 1 << 20), reference_u64(1, {}, 9)).status, 1);
  EXPECT_EQ(run_main(expecting(10, 1 << 20), reference_u64(1, {}, 11)).status, 1);
  EXPECT_EQ(run_main(expecting(1000, 100), s.substr(0, 99)).status, 1);
  EXPECT_EQ(run_main(expecting(1000, 100), s.substr(0, 101)).status, 1);
}

TEST(CheckLength, EmptyInputFailsUnlessNothingMustArrive) {
  main_run const m = run_main(make("1"), "");
  EXPECT_EQ(m.status, 1);
  EXPECT_EQ(m.err, "fizzgen check: empty input (nothing arrived; --count 0 says that nothing must)\n");
  EXPECT_EQ(run_main(expecting(0, {}), "").out, "fizzgen check: OK: 0 lines, 0 bytes\n");
  EXPECT_EQ(run_main(expecting({}, 0), "").status, 0);
  EXPECT_EQ(run_main(expecting(0, {}), "1\n").status, 1);
  EXPECT_EQ(run_main(expecting({}, 0), "1").status, 1);
}

TEST(CheckLength, ParallelJudgesTheSame) {
  temp_file out, err, in;
  in.write(reference_u64(1, {}, 3000000).substr(0, 10000000));
  EXPECT_EQ(fizzgen::check::check_main(expecting({}, 10000000), in.fd(), out.f, err.f, 3), 0) << err.read();
  ::lseek(in.fd(), 0, SEEK_SET);
  EXPECT_EQ(fizzgen::check::check_main(expecting(3000000, {}), in.fd(), out.f, err.f, 3), 1);
  EXPECT_NE(err.read().find("the stream ends early, at line "), std::string::npos);
}

TEST(CheckLength, LinesBetween) {
  using fizzgen::check::lines_between;
  EXPECT_EQ(lines_between("1", "1"), 1u);
  EXPECT_EQ(lines_between("1", "100"), 100u);
  EXPECT_EQ(lines_between("99", "1000"), 902u);
  EXPECT_EQ(lines_between("18446744073709551615", "18446744073709551616"), 2u);
  EXPECT_EQ(lines_between("100000000000000000000000000000", "100000000000000000000000000009"), 10u);
  EXPECT_EQ(lines_between("1", "18446744073709551615"), UINT64_MAX);
  EXPECT_EQ(lines_between("1", "18446744073709551616"), std::nullopt);
  EXPECT_EQ(lines_between("2", "18446744073709551616"), UINT64_MAX);
  EXPECT_THROW(lines_between("5", "3"), std::invalid_argument);
  EXPECT_THROW(lines_between("1000", "999"), std::invalid_argument);
  EXPECT_EQ(fizzgen::check::add_decimal("999", 1), "1000");
  EXPECT_EQ(fizzgen::check::add_decimal("18446744073709551615", UINT64_MAX), "36893488147419103230");
}

TEST(CheckMain, HintsAtLostAndRepeatedLines) {
  std::string const s = reference_u64(1, {}, 1000);
  std::size_t const at = s.find("\n776\n") + 1;  // drop lines 776 to 778
  std::string lost = s;
  lost.erase(at, s.find("\n779\n") + 1 - at);
  EXPECT_EQ(run_main(make("1"), lost).err,
            "fizzgen check: line 776 (byte offset " + std::to_string(at) +
                "): expected '776', got '779' (the line for 779: 3 lines missing before it)\n");
  std::string repeated = s;
  repeated.insert(s.find("\n98\n") + 4, "97\n");
  EXPECT_EQ(run_main(make("1"), repeated).err.find("got '97' (the line for 97 again: a repeat or a reorder)") !=
                std::string::npos,
            true);
}

}  // namespace

namespace {

/// check_fd and check_fd_parallel on the same bytes, for several thread counts.
void expect_parallel_matches(options const& o, std::string const& s) {
  temp_file in;
  in.write(s);
  result const sequential = fizzgen::check::check_fd(in.fd(), o);
  for (unsigned threads : {2u, 3u, 5u}) {
    ::lseek(in.fd(), 0, SEEK_SET);
    result const parallel = fizzgen::check::check_fd_parallel(in.fd(), o, threads);
    EXPECT_EQ(parallel, sequential) << "threads " << threads << ", bad line " << parallel.bad_line << " vs "
                                    << sequential.bad_line;
  }
}

}  // namespace

// Streams of several 4 MiB blocks, so lines, offsets and numbers carry across block edges.
TEST(CheckParallel, NewlinesAreCountedAsOneByOne) {
  std::mt19937_64 rng(20261206);
  auto const one_by_one = [](std::string const& s, std::size_t from, std::size_t n) {
    std::uint64_t count = 0;
    for (std::size_t i = from; i < from + n; ++i)
      if (s[i] == '\n') ++count;
    return count;
  };
  // Random text, text that is mostly newlines, and only newlines (a byte counter filled to its
  // limit before it is summed); every start offset of a vector, lengths around the sums' period.
  for (int density : {8, 200, 256}) {
    std::string s(20000, 'x');
    for (char& c : s) c = static_cast<int>(rng() % 256) < density ? '\n' : static_cast<char>('a' + rng() % 26);
    for (std::size_t from = 0; from < 17; ++from)
      for (std::size_t n :
           {std::size_t{0}, std::size_t{1}, std::size_t{15}, std::size_t{16}, std::size_t{17}, std::size_t{4079},
            std::size_t{4080}, std::size_t{4081}, std::size_t{4096}, std::size_t{19900}})
        EXPECT_EQ(fizzgen::check::count_newlines(s.data() + from, n), one_by_one(s, from, n))
            << "density " << density << ", from " << from << ", " << n << " bytes";
  }
}

TEST(CheckParallel, GoodStreamsMatchSequential) {
  std::string const classic_stream = reference_u64(1, {}, 2'000'000);  // ~14 MiB
  expect_parallel_matches(make("1"), classic_stream);
  expect_parallel_matches(make("1"), classic_stream.substr(0, classic_stream.size() - 3));  // cut-off last line
  expect_parallel_matches(make("99999999999999999999999990", {{2, "a"}, {7, "bb"}}),
                          reference("99999999999999999999999990", {{2, "a"}, {7, "bb"}}, 500'000));
  expect_parallel_matches(make("1"), "");
}

TEST(CheckParallel, FirstBadLineIsFoundWhereverItIs) {
  std::string const good = reference_u64(1, {}, 2'000'000);
  // Bad bytes in the first block, right after a block edge, and near the end.
  for (std::size_t at : {std::size_t{100}, (std::size_t{4} << 20) + 3, good.size() - 10}) {
    std::string bad = good;
    bad[at] = bad[at] == '7' ? '8' : '7';
    expect_parallel_matches(make("1"), bad);
    temp_file in;
    in.write(bad);
    result const r = fizzgen::check::check_fd_parallel(in.fd(), make("1"), 2);
    EXPECT_FALSE(r.ok);
    EXPECT_LE(r.bad_offset, at);
    EXPECT_GT(r.bad_offset + r.expected.size() + 1, at);
  }
  // Two bad lines in different blocks: the first one is reported.
  std::string twice = good;
  twice[(std::size_t{9} << 20)] = 'x';
  twice[(std::size_t{5} << 20)] = 'x';
  temp_file in;
  in.write(twice);
  result const r = fizzgen::check::check_fd_parallel(in.fd(), make("1"), 3);
  EXPECT_FALSE(r.ok);
  EXPECT_LE(r.bad_offset, std::size_t{5} << 20);
  EXPECT_GT(r.bad_offset + r.expected.size() + 1, std::size_t{5} << 20);
}

// ---- Lines without '\n': bounded and linear --------------------------------------------------

namespace {

/// A pipe fed from a thread: `head`, then `filler` repeated up to `total` bytes in all, a 64 KiB
/// piece at a time, so the stream is never held in memory. The writer stops early once the
/// reader closes its end (EPIPE; the caller ignores SIGPIPE).
class streamed_input {
 public:
  streamed_input(std::string head, char filler, std::uint64_t total) {
    if (::pipe(fds_) != 0) throw std::system_error(errno, std::generic_category(), "pipe");
    writer_ = std::thread([this, head = std::move(head), filler, total] {
      std::string const piece(1 << 16, filler);
      while (written_ < total) {
        std::string_view chunk =
            written_ < head.size() ? std::string_view(head).substr(written_) : std::string_view(piece);
        chunk = chunk.substr(0, std::min<std::uint64_t>(chunk.size(), total - written_));
        ssize_t const n = ::write(fds_[1], chunk.data(), chunk.size());
        if (n <= 0) break;
        written_ += static_cast<std::uint64_t>(n);
      }
      ::close(fds_[1]);
    });
  }
  streamed_input(streamed_input const&) = delete;
  streamed_input& operator=(streamed_input const&) = delete;
  ~streamed_input() { written(); }

  int fd() const { return fds_[0]; }
  /// Closes the reading end and waits for the writer: the bytes that went into the pipe.
  std::uint64_t written() {
    if (writer_.joinable()) {
      ::close(fds_[0]);
      writer_.join();
    }
    return written_;
  }

 private:
  int fds_[2] = {-1, -1};
  std::uint64_t written_ = 0;
  std::thread writer_;
};

constexpr std::uint64_t kHuge = std::uint64_t{400} << 20;  // the 400 MB of `head -c 400M /dev/zero`
// Far less than kHuge: what a reader that stops after its first block or two may have taken in.
constexpr std::uint64_t kFewBlocks = std::uint64_t{64} << 20;

/// check_fd (threads 0) or check_fd_parallel on `head`, then `filler` up to kHuge bytes. `taken`:
/// the bytes the writer got into the pipe before the checker returned and closed it.
result check_streamed(options const& o, std::string const& head, char filler, unsigned threads, std::uint64_t& taken) {
  streamed_input in(head, filler, kHuge);
  result const r =
      threads == 0 ? fizzgen::check::check_fd(in.fd(), o) : fizzgen::check::check_fd_parallel(in.fd(), o, threads);
  taken = in.written();
  return r;
}

}  // namespace

TEST(CheckLongLine, LongestLineBound) {
  using fizzgen::check::longest_line;
  EXPECT_EQ(longest_line(make("1")), 22u);  // 2^64 has 20 digits, one more after a carry, '\n'
  EXPECT_EQ(longest_line(make("1", classic())), 22u);
  EXPECT_EQ(longest_line(make(std::string(1000, '9'))), 1002u);  // 10^1000 has 1001 digits
  EXPECT_EQ(longest_line(make("1", {{3, std::string(3000, 'f')}, {5, std::string(4000, 'b')}})), 7001u);
}

TEST(CheckLongLine, NewlineFreeStreamFailsAtTheFirstByte) {
  // 400 MB of NULs, as `head -c 400M /dev/zero`: the parallel reader used to carry the partial
  // line from block to block, copying it each time (quadratic) and holding all of it.
  auto const old_handler = std::signal(SIGPIPE, SIG_IGN);
  std::uint64_t taken = 0;
  result const sequential = check_streamed(make("1"), "", '\0', 0, taken);
  EXPECT_FALSE(sequential.ok);
  EXPECT_EQ(sequential.bad_line, 1u);
  EXPECT_EQ(sequential.bad_offset, 0u);
  EXPECT_EQ(sequential.expected, "1");
  EXPECT_EQ(sequential.actual, std::string(fizzgen::check::kShowMax, '\0'));
  EXPECT_TRUE(sequential.actual_truncated);
  EXPECT_EQ(sequential.reason, "wrong line");
  EXPECT_LT(taken, kFewBlocks);
  for (unsigned threads : {1u, 2u, 4u}) {
    result const r = check_streamed(make("1"), "", '\0', threads, taken);
    EXPECT_EQ(r, sequential) << "threads " << threads;
    EXPECT_LT(taken, kFewBlocks) << "threads " << threads << ": read on into the line";
  }
  std::signal(SIGPIPE, old_handler);
}

TEST(CheckLongLine, NewlineFreeRunAfterGoodLinesFailsAtItsLine) {
  // Good lines past the first 4 MiB block, then a line that never ends: NULs, or the expected
  // line with its last byte repeated instead of '\n' (digits that look valid, or "Fizzzz...").
  auto const old_handler = std::signal(SIGPIPE, SIG_IGN);
  for (std::uint64_t count : {700'000u, 700'001u}) {
    std::string const good = reference_u64(1, {}, count);
    std::string const next = line_u64(count + 1, classic());
    struct tail {
      std::string head;
      char filler;
    };
    for (tail const& t : {tail{good, '\0'}, tail{good + next.substr(0, next.size() - 1), next.back()}}) {
      std::uint64_t taken = 0;
      result const sequential = check_streamed(make("1"), t.head, t.filler, 0, taken);
      EXPECT_FALSE(sequential.ok);
      EXPECT_EQ(sequential.bad_line, count + 1);
      EXPECT_EQ(sequential.bad_offset, good.size());
      EXPECT_EQ(sequential.lines, count);
      EXPECT_EQ(sequential.bytes, good.size());
      EXPECT_EQ(sequential.expected, next);
      EXPECT_EQ(sequential.actual.size(), fizzgen::check::kShowMax);
      EXPECT_TRUE(sequential.actual_truncated);
      for (unsigned threads : {1u, 2u, 4u}) {
        result const r = check_streamed(make("1"), t.head, t.filler, threads, taken);
        EXPECT_EQ(r, sequential) << "count " << count << ", threads " << threads;
        EXPECT_LT(taken, good.size() + kFewBlocks) << "count " << count << ", threads " << threads;
      }
    }
  }
  std::signal(SIGPIPE, old_handler);
}

TEST(CheckLongLine, LinesAsLongAsTheBoundStillPass) {
  // FizzBuzz lines exactly longest_line() bytes and 1000-digit numbers, over several blocks, so
  // that partial lines of up to a few KiB are carried across block edges.
  std::vector<rule> const rules{{3, std::string(3000, 'f')}, {5, std::string(4000, 'b')}};
  std::string const from = std::string(999, '9') + "0";
  std::string const s = reference(from, rules, 4000);
  ASSERT_GT(s.size(), std::size_t{8} << 20);
  std::size_t longest = 0;
  for (std::string const& line : split_lines(s)) longest = std::max(longest, line.size() + 1);
  ASSERT_EQ(longest, fizzgen::check::longest_line(make(from, rules)));
  expect_parallel_matches(make(from, rules), s);
  EXPECT_TRUE(check_whole(make(from, rules), s).ok);
}
