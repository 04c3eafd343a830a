// What the fuzzers (tests/fuzz/) know, kept in the normal suite: named tests for the edge cases
// their seeds and findings exercise (empty input, huge numbers, the 2^64 boundaries, the widest
// prefix each kernel takes), and a replay of every file in tests/fuzz/corpus/<target>/ through
// that target's harness, compiled in here under another name. A harness aborts on a finding, so a
// regression shows as the replay test crashing; to keep a new crash input, add it to the corpus
// under a name saying what it is, and a named test below.

#include <gtest/gtest.h>

#include <algorithm>
#include <compare>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "cli/args.hpp"
#include "generators/arch.hpp"
#include "generators/decimal.hpp"
#include "generators/fizzbuzz.hpp"
#include "generators/rules.hpp"
#include "oracle.hpp"
#include "verify/check.hpp"

// The harnesses' LLVMFuzzerTestOneInput, renamed by tests/CMakeLists.txt.
extern "C" int args_fuzz_one_input(std::uint8_t const* data, std::size_t size);
extern "C" int decimal_fuzz_one_input(std::uint8_t const* data, std::size_t size);
extern "C" int check_fuzz_one_input(std::uint8_t const* data, std::size_t size);
extern "C" int fizzbuzz_arch_fuzz_one_input(std::uint8_t const* data, std::size_t size);
extern "C" int morse_arch_fuzz_one_input(std::uint8_t const* data, std::size_t size);

namespace {

namespace cli = fizzgen::cli;
namespace check = fizzgen::check;
using fizzgen::decimal;

constexpr char kTwo64Minus1[] = "18446744073709551615";
constexpr char kTwo64[] = "18446744073709551616";

/// The message of the invalid_argument that f throws; fails the test when f does not throw.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (std::invalid_argument const& e) {
    return e.what();
  }
  ADD_FAILURE() << "no std::invalid_argument";
  return "";
}

decimal dec(std::string_view s) { return decimal::parse(s).value(); }

// ---- Replay of the seed corpora -------------------------------------------------------------

std::vector<std::filesystem::path> corpus(std::string const& target) {
  std::vector<std::filesystem::path> files;
  for (auto const& e : std::filesystem::directory_iterator(std::filesystem::path(FIZZGEN_FUZZ_CORPUS) / target))
    if (e.is_regular_file()) files.push_back(e.path());
  return files;
}

void replay(std::string const& target, int (*harness)(std::uint8_t const*, std::size_t)) {
  auto const files = corpus(target);
  EXPECT_FALSE(files.empty()) << "no seeds for " << target;
  for (auto const& file : files) {
    SCOPED_TRACE(file.string());
    std::ifstream in(file, std::ios::binary);
    std::string const bytes{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    harness(reinterpret_cast<std::uint8_t const*>(bytes.data()), bytes.size());  // aborts on a finding
  }
}

TEST(FuzzCorpus, ArgsSeedsPass) { replay("args_fuzz", args_fuzz_one_input); }
TEST(FuzzCorpus, DecimalSeedsPass) { replay("decimal_fuzz", decimal_fuzz_one_input); }
TEST(FuzzCorpus, CheckSeedsPass) { replay("check_fuzz", check_fuzz_one_input); }
TEST(FuzzCorpus, FizzbuzzArchSeedsPass) { replay("fizzbuzz_arch_fuzz", fizzbuzz_arch_fuzz_one_input); }
TEST(FuzzCorpus, MorseArchSeedsPass) { replay("morse_arch_fuzz", morse_arch_fuzz_one_input); }

// ---- Option parsers -------------------------------------------------------------------------

TEST(FuzzRegressionArgs, SizeAtTheTwoTo64Boundary) {
  EXPECT_EQ(cli::parse_size("--bytes", kTwo64Minus1), UINT64_MAX);
  EXPECT_NE(error_of([] { cli::parse_size("--bytes", kTwo64); }).find("too large"), std::string::npos);
  EXPECT_EQ(cli::parse_size("--bytes", "15EiB"), std::uint64_t{15} << 60);
  EXPECT_NE(error_of([] { cli::parse_size("--bytes", "16EiB"); }).find("too large"), std::string::npos);
  EXPECT_NE(error_of([] { cli::parse_size("--bytes", "16E"); }).find("too large"), std::string::npos);
  EXPECT_EQ(cli::parse_size("--bytes", "18EB"), std::uint64_t{18'000'000'000'000'000'000u});
  EXPECT_NE(error_of([] { cli::parse_size("--bytes", "19EB"); }).find("too large"), std::string::npos);
  // Digits alone past 2^64, however many leading zeros come first.
  EXPECT_EQ(cli::parse_size("--bytes", std::string(40, '0') + "1K"), 1024u);
  EXPECT_NE(error_of([] { cli::parse_size("--bytes", std::string(40, '9')); }).find("too large"), std::string::npos);
}

TEST(FuzzRegressionArgs, EmptyTextIsRejectedByEveryParser) {
  EXPECT_FALSE(error_of([] { cli::parse_positive("--from", ""); }).empty());
  EXPECT_FALSE(error_of([] { cli::parse_size("--bytes", ""); }).empty());
  EXPECT_FALSE(error_of([] { cli::parse_threads(""); }).empty());
  EXPECT_FALSE(error_of([] { cli::parse_rule(""); }).empty());
  EXPECT_FALSE(error_of([] { cli::parse_rule(":"); }).empty());
}

TEST(FuzzRegressionArgs, ErrorsAreOneLineNamingTheOption) {
  for (std::string const& text :
       {std::string("3:Fi\nzz"), std::string("\n"), std::string("1\n:x"), std::string(":\n")}) {
    std::string const e = error_of([&] { cli::parse_rule(text); });
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
    EXPECT_EQ(e.rfind("--rule", 0), 0u) << e;
  }
  std::string const e = error_of([] { cli::parse_size("--bytes", "1\nK"); });
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  EXPECT_EQ(e.rfind("--bytes", 0), 0u) << e;
}

TEST(FuzzRegressionArgs, ThreadsAndRulesAtTheirLimits) {
  EXPECT_EQ(cli::parse_threads("0001"), 1u);
  EXPECT_EQ(cli::parse_threads("1024"), 1024u);
  EXPECT_FALSE(error_of([] { cli::parse_threads("1025"); }).empty());
  EXPECT_FALSE(error_of([] { cli::parse_threads(kTwo64); }).empty());
  EXPECT_EQ(cli::parse_rule(std::string(kTwo64Minus1) + ":W").divisor, UINT64_MAX);
  EXPECT_FALSE(error_of([] { cli::parse_rule(std::string(kTwo64) + ":W"); }).empty());
  EXPECT_EQ(cli::parse_rule("3::").word, ":");  // the first colon splits
}

// ---- decimal ---------------------------------------------------------------------------------

TEST(FuzzRegressionDecimal, PlusAcrossTwoTo64) {
  EXPECT_EQ(dec(kTwo64Minus1).plus(1).digits(), kTwo64);
  EXPECT_EQ(dec(kTwo64Minus1).plus(UINT64_MAX).digits(), "36893488147419103230");
  EXPECT_EQ(dec(std::string(40, '9')).plus(UINT64_MAX).digits(), oracle::add(std::string(40, '9'), kTwo64Minus1));
  EXPECT_EQ(dec("0").plus(UINT64_MAX).digits(), kTwo64Minus1);
}

TEST(FuzzRegressionDecimal, MinusAtTheTwoTo64Limit) {
  // 2^65 - 2 minus (2^64 - 1) is 2^64 - 1, the largest that fits; one more does not fit.
  EXPECT_EQ(dec("36893488147419103230").minus(dec(kTwo64Minus1)), std::optional<std::uint64_t>(UINT64_MAX));
  EXPECT_EQ(dec("36893488147419103231").minus(dec(kTwo64Minus1)), std::nullopt);
  EXPECT_EQ(dec(kTwo64).minus(dec("0")), std::nullopt);
  EXPECT_EQ(dec("000").minus(dec("0")), std::optional<std::uint64_t>(0));
  EXPECT_EQ(dec("1").minus(dec(kTwo64)), std::nullopt);
}

TEST(FuzzRegressionDecimal, ModByTheLargestDivisors) {
  std::string const forty(40, '9');
  for (std::uint64_t d : {UINT64_MAX, UINT64_MAX - 58, std::uint64_t{1} << 63, std::uint64_t{1}})
    EXPECT_EQ(dec(forty).mod(d), oracle::mod(forty, d)) << d;
  EXPECT_EQ(dec(kTwo64).mod(UINT64_MAX), 1u);
}

TEST(FuzzRegressionDecimal, ParseRejectsEmptyAndJunk) {
  for (std::string_view bad : {"", "12a", "-1", "+1", " 1", "1 "}) EXPECT_FALSE(decimal::parse(bad)) << bad;
  EXPECT_TRUE(dec("0000").is_zero());
  EXPECT_EQ(dec("0000") <=> dec("0"), std::strong_ordering::equal);
}

// ---- check -----------------------------------------------------------------------------------

check::result check_whole(check::options const& o, std::string_view stream) {
  check::checker c(o);
  c.feed(stream);
  return c.finish();
}

TEST(FuzzRegressionCheck, EmptyStreamPasses) {
  check::result const r = check_whole({}, "");
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.lines, 0u);
  EXPECT_EQ(r.bytes, 0u);
}

TEST(FuzzRegressionCheck, AcrossTwoTo64CutInsideTheLastLine) {
  std::string const from = "18446744073709551611";
  std::string stream = oracle::fizzbuzz_lines(from, 2000);
  std::size_t const last_line = stream.size() - stream.rfind('\n', stream.size() - 2) - 1;
  stream.resize(stream.size() - 2);  // the '\n' and one more byte of the last line
  check::result const r = check_whole({from, {}}, stream);
  EXPECT_TRUE(r.ok);
  EXPECT_EQ(r.lines, 1999u);
  EXPECT_EQ(r.tail_bytes, last_line - 2);
}

TEST(FuzzRegressionCheck, CorruptionAcross10To20IsFoundAtItsLine) {
  std::string const from = "99999999999999999990";
  std::string stream = oracle::fizzbuzz_lines(from, 500);
  std::size_t const at = 0x123;
  stream[at] ^= 0x20;
  check::result const r = check_whole({from, {}}, stream);
  ASSERT_FALSE(r.ok);
  std::size_t const line_start = stream.rfind('\n', at - 1) + 1;
  EXPECT_EQ(r.bad_offset, line_start);
  EXPECT_EQ(r.bad_line, static_cast<std::uint64_t>(std::count(stream.begin(), stream.begin() + at, '\n')) + 1);
}

TEST(FuzzRegressionCheck, CustomRulesWithTheLargestDivisor) {
  oracle::rules const rs = {{2, "Even"}, {7, "Seven"}, {UINT64_MAX, "Max"}};
  std::string const from = "18446744073709551610";
  std::string const stream = oracle::fizzbuzz_lines(from, rs, 300);
  check::options o{from, {}};
  for (auto const& [d, w] : rs) o.rules.push_back({d, w});
  check::result const r = check_whole(o, stream);
  EXPECT_TRUE(r.ok) << r.bad_line << ": " << r.expected << " vs " << r.actual;
  EXPECT_EQ(r.lines, 300u);
}

TEST(FuzzRegressionCheck, FortyDigitNumbersPastTheDecadeFastPath) {
  std::string const from = "9999999999999999999999999999999999999995";
  std::string const stream = oracle::fizzbuzz_lines(from, 50);
  EXPECT_TRUE(check_whole({from, {}}, stream).ok);
  std::string bad = stream;
  bad[bad.size() / 2] ^= 1;
  EXPECT_FALSE(check_whole({from, {}}, bad).ok);
}

TEST(FuzzRegressionCheck, AnEmptyLineIsReportedAsSuch) {
  check::result const r = check_whole({}, "1\n2\n\n4\n");
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.bad_line, 3u);
  EXPECT_EQ(r.bad_offset, 4u);
  EXPECT_EQ(r.expected, "Fizz");
  EXPECT_EQ(r.reason, "empty line");
}

TEST(FuzzRegressionCheck, InvalidFromThrows) {
  for (std::string from : {"", "0", "0123", "12a"})
    EXPECT_THROW(check::checker(check::options{from, {}}), std::invalid_argument) << from;
}

// ---- Every kernel arch against scalar and the oracle ------------------------------------------

std::string fill_all(fizzgen::fizzbuzz const& g) {
  std::string out;
  for (std::uint64_t i = 0;; ++i) {
    auto const c = g.plan(i);
    if (!c) break;
    std::vector<std::byte> buffer(g.chunk_capacity());
    out.append(reinterpret_cast<char const*>(buffer.data()), g.fill(*c, buffer));
  }
  return out;
}

void expect_all_archs(std::string const& from, std::uint64_t lines, std::size_t chunk_bytes) {
  std::string const want = oracle::fizzbuzz_lines(from, lines);
  for (fizzgen::kernel_arch const& arch : fizzgen::kernel_archs()) {
    if (!arch.available) continue;
    fizzgen::fizzbuzz const g(dec(from), fizzgen::classic_rules(), lines, chunk_bytes, arch);
    EXPECT_EQ(oracle::first_difference(fill_all(g), want), "") << arch.name << " from " << from;
  }
}

TEST(FuzzRegressionArch, AcrossTwoTo64) { expect_all_archs("18446744073709551571", 200, 1024); }

TEST(FuzzRegressionArch, AcrossEachKernelsWidestPrefix) {
  // A d-digit number gives the kernel a (d-1)-digit prefix: cross from max_prefix + 1 digits to
  // max_prefix + 2, where each kernel hands over to the scalar path.
  for (fizzgen::kernel_arch const& arch : fizzgen::kernel_archs()) {
    if (arch.blocks == nullptr) continue;
    auto const digits = static_cast<unsigned>(arch.max_prefix + 1);
    expect_all_archs(oracle::pow10_minus(digits, 95), 300, 1024);
    expect_all_archs(oracle::pow10_minus(digits, 95), 300, 64);
  }
}

TEST(FuzzRegressionArch, ZeroLinesAndOneLineChunks) {
  expect_all_archs("1", 0, 4096);
  expect_all_archs("1", 100, 1);
  expect_all_archs("99999999999991", 300, 64);
}

}  // namespace
