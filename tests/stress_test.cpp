// Driving a consumer end to end: check's length options (a lost tail must fail), check FILE,
// --rate and --duration on every stream subcommand, and their bad values. Every stream is judged
// by `fizzgen check` through a real pipe. Timed figures use loose bounds (a loaded CI machine);
// the exact ones belong to bench/rate.sh.

#include <algorithm>
#include <string>
#include <vector>

#include "pipeline_harness.hpp"

namespace {

using namespace fizzgen_test;

class Stress : public pipeline_test {};

/// The number before `word` in `text` ("... 4096 bytes" → 4096); 0 when absent.
std::uint64_t number_before(std::string const& text, std::string const& word) {
  std::size_t const at = text.find(word);
  if (at == std::string::npos || at < 2) return 0;
  std::size_t start = text.find_last_not_of("0123456789", at - 2);
  start = start == std::string::npos ? 0 : start + 1;
  return std::stoull(text.substr(start, at - 1 - start));
}

// ---- check: what must arrive ----------------------------------------------------------------

TEST_F(Stress, LostTailFails) {
  outcome const o = sh("$F --count 1000 | head -n 10 | $F check --count 1000");
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err,
            "fizzgen check: expected 1000 lines, received 10 lines, 35 bytes: the stream ends early, at line 11 (byte "
            "offset 35)\n");
  // The same through several threads of check, and by bytes.
  outcome const bytes = sh("$F --bytes 1048576 | head -c 1000000 | $F check --bytes 1048576 --threads 2");
  EXPECT_EQ(bytes.status, 1);
  EXPECT_NE(bytes.err.find("expected 1048576 bytes, received "), std::string::npos) << bytes.err;
  EXPECT_NE(bytes.err.find("1000000 bytes"), std::string::npos) << bytes.err;
  outcome const to = sh("$F --from 7 --to 5000 | head -n -1 | $F check --from 7 --to 5000");
  EXPECT_EQ(to.status, 1);
  EXPECT_NE(to.err.find("expected 4994 lines, received 4993 lines"), std::string::npos) << to.err;
}

TEST_F(Stress, ExactLengthsPassAndExtraFails) {
  EXPECT_TRUE(check_ok(ok("$F --count 1000000 --threads 2 | $F check --count 1000000"), 6274073));
  EXPECT_TRUE(check_ok(ok("$F --bytes 12345 | $F check --bytes 12345"), 12345));
  EXPECT_NE(ok("$F --from 99 --to 100000 | $F check --from 99 --to 100000").find("OK: 99902 lines"), std::string::npos);
  EXPECT_TRUE(check_ok(ok("$F --count 1K --bytes 100 | $F check --count 1K --bytes 100"), 100));
  outcome const extra = sh("$F --count 1001 | $F check --count 1000");
  EXPECT_EQ(extra.status, 1);
  EXPECT_NE(extra.err.find("more than expected, from line 1001"), std::string::npos) << extra.err;
}

TEST_F(Stress, EmptyInputFailsUnlessNothingMayArrive) {
  outcome const o = sh("$F check </dev/null");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("empty input"), std::string::npos) << o.err;
  EXPECT_NE(ok("$F --count 0 | $F check --count 0").find("OK: 0 lines, 0 bytes"), std::string::npos);
  EXPECT_EQ(sh("$F --count 1 | $F check --count 0").status, 1);
}

TEST_F(Stress, CheckReadsAFile) {
  ok("$F --count 100000 >out.txt");
  EXPECT_TRUE(check_ok(ok("$F check --count 100000 out.txt"), 574073));
  EXPECT_TRUE(check_ok(ok("$F check --count 100000 - <out.txt"), 574073));
  outcome const missing = sh("$F check no-such-file");
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, "fizzgen check: no-such-file: No such file or directory\n");
}

TEST_F(Stress, CheckNamesLostLines) {
  outcome const o = sh("$F --count 1000 | sed '776,778d' | $F check");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("line 776 (byte offset 3608): expected '776', got '779' (the line for 779: 3 lines missing"),
            std::string::npos)
      << o.err;
}

// ---- --rate and --duration --------------------------------------------------------------------

TEST_F(Stress, RateHoldsOverTwoSeconds) {
  // 2 s at 4 MiB/s: 8 MiB give or take a loaded machine. Exact figures: bench/rate.sh.
  outcome const o = sh("$F --rate 4M --duration 2s --stats 2>stats.txt | $F check", scaled(20s));
  EXPECT_EQ(o.status, 0) << o.err;
  std::uint64_t const bytes = number_before(o.out, "bytes");
  EXPECT_GT(bytes, 7u << 20) << o.out;
  EXPECT_LT(bytes, 9u << 20) << o.out;
  std::string const stats = file("stats.txt");
  EXPECT_NE(stats.find("ended: duration"), std::string::npos) << stats;
  EXPECT_NE(stats.find("--rate 4194304 bytes/s"), std::string::npos) << stats;
}

TEST_F(Stress, RateWithBytesEndsByBytesOnTime) {
  // 256 KiB at 512 KiB/s: half a second, never much less (no burst), verified to the byte.
  for (char const* cmd : {"$F --rate 512K --bytes 256K --threads 3", "$F yes --rate 512K --bytes 256K",
                          "$F morse --rate 512K --bytes 256K --threads 2"}) {
    std::string const check = std::string(cmd).find("yes") != std::string::npos     ? "wc -c"
                              : std::string(cmd).find("morse") != std::string::npos ? "wc -c"
                                                                                    : "$F check --bytes 256K";
    outcome const o = sh(std::string(cmd) + " | " + check, scaled(20s));
    EXPECT_EQ(o.status, 0) << cmd << ": " << o.err;
    EXPECT_NE(o.out.find("262144"), std::string::npos) << cmd << ": " << o.out;
    EXPECT_GT(o.seconds, 0.4) << cmd;
    EXPECT_LT(o.seconds, scaled(5s).count()) << cmd;
  }
}

TEST_F(Stress, DurationEndsOnTimeWithExitZero) {
  outcome const o = sh("$F --duration 700ms --stats 2>stats.txt | $F check", scaled(20s));
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_NE(o.out.find("OK: "), std::string::npos) << o.out;
  EXPECT_GT(o.seconds, 0.6);
  EXPECT_LT(o.seconds, scaled(4s).count());
  EXPECT_NE(file("stats.txt").find("ended: duration (--duration 0.700 s)"), std::string::npos) << file("stats.txt");
  // --count ends first: the duration is only a bound.
  EXPECT_TRUE(check_ok(ok("$F --count 1000 --duration 1h | $F check --count 1000"), 4673));
  outcome const yes = sh("$F yes --duration 0.3 --rate 1M --stats 2>&1 >/dev/null", scaled(20s));
  EXPECT_EQ(yes.status, 0);
  EXPECT_NE(yes.out.find("ended: duration"), std::string::npos) << yes.out;
}

TEST_F(Stress, BadRatesAndDurationsAreRefused) {
  for (char const* sub : {"", "yes ", "morse "}) {
    for (char const* bad : {"--rate 0", "--rate -1", "--rate 5x", "--rate 1.5M", "--duration 0", "--duration -1s",
                            "--duration 3x", "--duration 1d"}) {
      std::string const cmd = std::string("$F ") + sub + bad + " --count 1";
      outcome const o = sh(cmd);
      EXPECT_EQ(o.status, 2) << cmd;
      EXPECT_EQ(o.out, "") << cmd;
      EXPECT_EQ(count_lines(o.err), 1u) << cmd << ": " << o.err;
      EXPECT_EQ(o.err.rfind("fizzgen: --", 0), 0u) << cmd << ": " << o.err;
    }
  }
}

// ---- --write-size and --seed --------------------------------------------------------------

/// The sizes of fizzgen's write(2) calls to fd 1 under strace, in order; "" when strace is missing.
std::string const kWrites =
    "command -v strace >/dev/null || exit 77; "
    // LeakSanitizer cannot run under ptrace: the traced run of a sanitized build goes without it.
    "ASAN_OPTIONS=\"${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0\" "
    "strace -f -qq -e trace=write -e signal=none -o trace.txt ";
std::string const kSizes = " >/dev/null && sed -n 's/.*write(1, .*= \\([0-9]*\\)$/\\1/p' trace.txt | tr '\\n' ' '";

TEST_F(Stress, WriteSizesAreVerifiedEndToEnd) {
  for (char const* threads : {"1", "3"}) {
    for (char const* sizes : {"4096", "1,4096,7", "random:1..65536", "random:1..3"}) {
      std::string const cmd = std::string("$F --count 200000 --threads ") + threads + " --write-size " + sizes +
                              " | $F check --count 200000";
      EXPECT_NE(ok(cmd, scaled(30s)).find("OK: 200000 lines"), std::string::npos) << cmd;
    }
  }
  EXPECT_TRUE(check_ok(ok("$F --bytes 300000 --write-size 7,5000 --rate 1M | $F check --bytes 300000"), 300000));
  EXPECT_EQ(ok("$F yes --bytes 100000 --write-size random:1..999 | wc -c"), "100000\n");
}

TEST_F(Stress, WritesAreExactlyThePattern) {
  outcome const list = sh(kWrites + "$F --bytes 20000 --threads 2 --write-size 1,4096,7" + kSizes);
  if (list.status == 77) GTEST_SKIP() << "no strace";
  ASSERT_EQ(list.status, 0) << list.err;
  std::string want;
  for (std::size_t total = 0, i = 0; total < 20000; ++i) {
    std::size_t const size = std::min<std::size_t>(std::vector<std::size_t>{1, 4096, 7}[i % 3], 20000 - total);
    want += std::to_string(size) + " ";
    total += size;
  }
  EXPECT_EQ(list.out, want);
  // The same seed, the same writes; another seed, others. Each in 1..3000, summing to the stream.
  std::string const random = "$F --bytes 1M --write-size random:1..3000 --seed ";
  std::string const a = ok(kWrites + random + "42" + kSizes);
  EXPECT_EQ(ok(kWrites + random + "42 --threads 3" + kSizes), a);
  EXPECT_NE(ok(kWrites + random + "43" + kSizes), a);
  std::uint64_t sum = 0, writes = 0;
  for (std::size_t pos = 0; pos < a.size();) {
    std::size_t const end = a.find(' ', pos);
    std::uint64_t const n = std::stoull(a.substr(pos, end - pos));
    EXPECT_GE(n, 1u);
    EXPECT_LE(n, 3000u);
    sum += n;
    ++writes;
    pos = end + 1;
  }
  EXPECT_EQ(sum, 1u << 20);
  EXPECT_GT(writes, 500u);  // about 1 MiB / 1500
}

TEST_F(Stress, SeedIsPrintedAndReproducesTheStream) {
  outcome const o = sh("$F --bytes 100000 --write-size random:1..100 --stats 2>stats.txt | $F check --bytes 100000");
  EXPECT_EQ(o.status, 0) << o.err;
  std::string const stats = file("stats.txt");
  std::size_t const at = stats.find("--seed ");
  ASSERT_NE(at, std::string::npos) << stats;
  EXPECT_NE(stats.find("writes: --write-size random:1..100 --seed "), std::string::npos) << stats;
  ok("$F --bytes 100000 --write-size random:1..100 --seed 5 --stats-json s.json >/dev/null");
  EXPECT_NE(file("s.json").find("\"seed\": 5,"), std::string::npos) << file("s.json");
}

TEST_F(Stress, BadWriteSizesAreRefused) {
  for (char const* bad : {"--write-size 0", "--write-size random:9..3", "--write-size random:0..3",
                          "--write-size random:5", "--write-size 1,,2", "--write-size 5x", "--write-size 1G",
                          "--write-size ,", "--seed 5", "--write-size random:1..9 --seed x"}) {
    std::string const cmd = std::string("$F ") + bad + " --count 1";
    outcome const o = sh(cmd);
    EXPECT_EQ(o.status, 2) << cmd;
    EXPECT_EQ(o.out, "") << cmd;
    EXPECT_EQ(count_lines(o.err), 1u) << cmd << ": " << o.err;
  }
}

}  // namespace
