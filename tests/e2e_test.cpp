// End to end: the real fizzgen binary through /bin/sh pipelines, real pipes, pv, files, and
// fizzgen check, judged against the line-at-a-time oracle and GNU yes.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "oracle.hpp"
#include "pipeline_harness.hpp"

namespace {

using namespace fizzgen_test;

/// Each test gets a fresh directory; commands run in it through bash with $F naming fizzgen.
class E2E : public fizzgen_test::pipeline_test {
 protected:
  std::vector<unsigned> most_threads(std::vector<std::string> const& commands);
};

/// The oracle for lines 1..n, computed once per n (the big ones are used by several tests).
std::string const& classic_from_one(std::uint64_t n) {
  static std::vector<std::pair<std::uint64_t, std::string>> cache;
  for (auto const& [k, v] : cache)
    if (k == n) return v;
  cache.emplace_back(n, oracle::fizzbuzz_lines("1", n));
  return cache.back().second;
}

// ---- windows of the sequence --------------------------------------------------------------------

TEST_F(E2E, FirstLines) {
  EXPECT_EQ(ok("$F --count 15"), "1\n2\nFizz\n4\nBuzz\nFizz\n7\n8\nFizz\nBuzz\n11\nFizz\n13\n14\nFizzBuzz\n");
  EXPECT_EQ(oracle::first_difference(ok("$F --count 100000"), classic_from_one(100000)), "");
}

TEST_F(E2E, WindowsMatchTheOracle) {
  struct window {
    std::string from;
    std::uint64_t count;
  };
  std::vector<window> const windows{
      {"99999999999999999999999999999990", 30},  // past 2^64 and a digit roll-over
      {"999999999999999990", 40},
      {"18446744073709551600", 40},  // across 2^64
      {"9980", 40},
      {"1", 1},
      {"7", 1},
      {oracle::pow10_minus(25, 20), 40},
      {"1234567890123456789012345678901234567890", 100},
  };
  for (auto const& w : windows) {
    for (char const* threads : {"", " --threads 1", " --threads 3"}) {
      std::string const cmd = "$F --from " + w.from + " --count " + std::to_string(w.count) + threads;
      EXPECT_EQ(oracle::first_difference(ok(cmd), oracle::fizzbuzz_lines(w.from, w.count)), "") << cmd;
    }
  }
}

TEST_F(E2E, PowersNameTheWindow) {
  // --from and --to, for the stream and for check, take B^E, B^E+N and B^E-N as well as digits.
  EXPECT_EQ(ok("$F --from 2^64-5 --count 10"), oracle::fizzbuzz_lines("18446744073709551611", 10));
  EXPECT_EQ(ok("$F --from 10^20-3 --to 10^20+3"), oracle::fizzbuzz_lines("99999999999999999997", 7));
  std::string const e30 = "1" + std::string(30, '0');
  EXPECT_EQ(ok("$F --from 10^30 --count 1000"), oracle::fizzbuzz_lines(e30, 1000));
  EXPECT_NE(ok("$F --from " + e30 + " --count 1000 | $F check --from 10^30 --to 10^30+999").find("OK"),
            std::string::npos);
  EXPECT_NE(ok("$F --from 2^64-5 --count 10 | $F check --from 2^64-5 --count 10").find("OK"), std::string::npos);
  // A window off by one is caught: check takes the same value the stream did.
  EXPECT_NE(sh("$F --from 10^30 --count 1000 | $F check --from 10^30+1 --count 1000").status, 0);
}

TEST_F(E2E, ToIsInclusive) {
  EXPECT_EQ(oracle::first_difference(ok("$F --to 15"), oracle::fizzbuzz_lines("1", 15)), "");
  EXPECT_EQ(oracle::first_difference(ok("$F --from 5 --to 20"), oracle::fizzbuzz_lines("5", 16)), "");
  EXPECT_EQ(ok("$F --from 7 --to 7"), "7\n");
  EXPECT_EQ(oracle::first_difference(ok("$F --from 18446744073709551610 --to 18446744073709551630"),
                                     oracle::fizzbuzz_lines("18446744073709551610", 21)),
            "");
  EXPECT_EQ(ok("$F --from 0099 --to 0101"), "Fizz\nBuzz\n101\n");
}

TEST_F(E2E, ThreadCountsGiveIdenticalBytes) {
  std::string const& want = classic_from_one(300000);
  for (int t = 1; t <= 8; ++t) {
    std::string const cmd = "$F --count 300000 --threads " + std::to_string(t);
    std::string const got = ok(cmd);
    ASSERT_EQ(got.size(), want.size()) << cmd;
    ASSERT_EQ(oracle::first_difference(got, want), "") << cmd;
  }
  // The same through a pipe (vmsplice) rather than into a file.
  for (int t : {1, 2, 4, 8}) {
    std::string const cmd = "$F --count 300000 --threads " + std::to_string(t) + " | cat";
    ASSERT_EQ(oracle::first_difference(ok(cmd), want), "") << cmd;
  }
}

TEST_F(E2E, CustomRules) {
  oracle::rules const abc{{2, "a"}, {3, "bb"}, {7, "ccc"}};
  EXPECT_EQ(oracle::first_difference(ok("$F --rule 2:a --rule 3:bb --rule 7:ccc --count 1000"),
                                     oracle::fizzbuzz_lines("1", abc, 1000)),
            "");
  EXPECT_EQ(oracle::first_difference(
                ok("$F --rule 2:a --rule 3:bb --rule 7:ccc --from 99999999999999999990 --count 50 --threads 2"),
                oracle::fizzbuzz_lines("99999999999999999990", abc, 50)),
            "");
  EXPECT_EQ(ok("$F --rule 1:X --count 4"), "X\nX\nX\nX\n");
  EXPECT_EQ(oracle::first_difference(ok("$F --rule 1000000007:P --from 1000000000 --count 20"),
                                     oracle::fizzbuzz_lines("1000000000", {{1000000007, "P"}}, 20)),
            "");
  EXPECT_EQ(oracle::first_difference(ok("$F --rule 4294967311:Q --rule 3:Fizz --from 4294967300 --count 30"),
                                     oracle::fizzbuzz_lines("4294967300", {{4294967311, "Q"}, {3, "Fizz"}}, 30)),
            "");
  // Order of the words follows the order of the options.
  EXPECT_EQ(ok("$F --rule 5:Buzz --rule 3:Fizz --from 14 --count 2"), "14\nBuzzFizz\n");
}

// ---- yes ----------------------------------------------------------------------------------------

TEST_F(E2E, YesMatchesGnuYes) {
  std::vector<std::string> const arg_sets{"", "a b", "-- -n", "''", "'' a", "a ''", "hello   'big world'"};
  for (auto const& args : arg_sets) {
    for (std::uint64_t n : {std::uint64_t{1}, std::uint64_t{4097}, std::uint64_t{3000017}}) {
      std::string const bytes = std::to_string(n);
      std::string const want = ok("/usr/bin/yes " + args + " | head -c " + bytes);
      ASSERT_EQ(want.size(), n) << args;
      EXPECT_EQ(oracle::first_difference(ok("$F yes " + args + " | head -c " + bytes), want), "")
          << "yes " << args << ", " << n << " bytes";
      EXPECT_EQ(oracle::first_difference(ok("$F yes --bytes " + bytes + " " + args), want), "")
          << "yes --bytes " << args;
    }
  }
  EXPECT_EQ(ok("$F yes --count 3 a b"), "a b\na b\na b\n");
  EXPECT_EQ(ok("$F yes --count 2"), "y\ny\n");
  EXPECT_EQ(ok("$F yes --count 2 -- --count"), "--count\n--count\n");
}

TEST_F(E2E, YesLineLongerThanOneMebibyte) {
  // One argument may hold at most 128 KiB (MAX_ARG_STRLEN), so 11 of 100 KiB make a 1.1 MiB line.
  std::string const setup = "A=$(head -c 102400 /dev/zero | tr '\\0' x); ARGS=\"$A $A $A $A $A $A $A $A $A $A $A\"; ";
  std::string const bytes = std::to_string(5 * (1 << 20) + 17);
  std::string const want = ok(setup + "/usr/bin/yes $ARGS | head -c " + bytes);
  ASSERT_EQ(want.size(), 5u * (1 << 20) + 17);
  ASSERT_EQ(want.find('\n'), 11u * 102400 + 10);
  EXPECT_EQ(oracle::first_difference(ok(setup + "$F yes $ARGS | head -c " + bytes), want), "");
  EXPECT_EQ(oracle::first_difference(ok(setup + "$F yes --bytes " + bytes + " $ARGS"), want), "");
  EXPECT_EQ(oracle::first_difference(ok(setup + "$F yes --threads 3 $ARGS | head -c " + bytes), want), "");
}

// ---- real pipes, pv, files ----------------------------------------------------------------------

TEST_F(E2E, ThroughPipesAndPv) {
  std::string const& want = classic_from_one(2000000);
  ok("$F --count 2000000 | cat > direct");
  EXPECT_EQ(oracle::first_difference(read_file(path("direct")), want), "") << "fizzgen | cat";
  for (char const* threads : {"", " --threads 1", " --threads 2", " --threads 4"}) {
    ok(std::string("$F --count 2000000") + threads + " | pv -q | cat > via_pv");
    std::string const got = read_file(path("via_pv"));
    ASSERT_EQ(got.size(), want.size()) << threads;
    ASSERT_EQ(oracle::first_difference(got, want), "") << "fizzgen" << threads << " | pv -q | cat: corrupted";
  }
}

TEST_F(E2E, PvThenCheck) {
  for (char const* threads : {"", " --threads 1", " --threads 2"}) {
    std::string const out = ok(std::string("$F --count 2000000") + threads + " | pv -q | $F check");
    EXPECT_NE(out.find("OK"), std::string::npos) << out;
    EXPECT_NE(out.find("2000000"), std::string::npos) << out;
  }
  // A bigger run: a pipe reader that forwards with splice is where reused buffers would show.
  std::string const out = ok("$F --count 10M --threads 2 | pv -q | $F check", 40s);
  EXPECT_NE(out.find("OK"), std::string::npos) << out;
}

TEST_F(E2E, FileOutputEqualsPipeOutput) {
  ok("$F --count 200000 --threads 2 > file");
  ok("$F --count 200000 --threads 2 | cat > piped");
  std::string const file = read_file(path("file"));
  EXPECT_EQ(oracle::first_difference(file, read_file(path("piped"))), "");
  EXPECT_EQ(oracle::first_difference(file, classic_from_one(200000)), "");
}

TEST_F(E2E, AppendToFile) {
  write_file(path("log"), "header\n");
  ok("$F --count 100000 >> log");
  ok("$F --from 5 --count 10 >> log");
  EXPECT_TRUE(read_file(path("log")) == "header\n" + classic_from_one(100000) + oracle::fizzbuzz_lines("5", 10));
}

TEST_F(E2E, BytesCutsExactly) {
  std::string const& all = classic_from_one(1000000);
  struct cut {
    char const* arg;
    std::size_t bytes;
  };
  for (cut c : {cut{"1", 1}, cut{"2", 2}, cut{"1000", 1000}, cut{"1K", 1024}, cut{"1KB", 1000}, cut{"3b", 1536},
                cut{"1M", 1 << 20}, cut{"2MB", 2000000}, cut{"1048577", (1 << 20) + 1}, cut{"12345", 12345}}) {
    for (char const* threads : {" --threads 1", " --threads 3"}) {
      std::string const cmd = std::string("$F --bytes ") + c.arg + threads;
      std::string const got = ok(cmd);
      ASSERT_EQ(got.size(), c.bytes) << cmd;
      EXPECT_EQ(oracle::first_difference(got, all.substr(0, c.bytes)), "") << cmd;
      EXPECT_EQ(oracle::first_difference(ok(cmd + " | cat"), got), "") << cmd << " | cat";
    }
  }
  EXPECT_EQ(ok("$F --bytes 0"), "");
  EXPECT_EQ(ok("$F yes --bytes 1M | wc -c"), "1048576\n");
  // --count takes the same suffixes; --bytes and --count together: whichever ends first.
  EXPECT_EQ(count_lines(ok("$F --count 1K")), 1024u);
  EXPECT_EQ(oracle::first_difference(ok("$F --count 2K --bytes 100"), all.substr(0, 100)), "");
  EXPECT_EQ(oracle::first_difference(ok("$F --count 10 --bytes 1M"), oracle::fizzbuzz_lines("1", 10)), "");
}

// ---- check --------------------------------------------------------------------------------------

TEST_F(E2E, CheckPasses) {
  std::string const out = ok("$F --count 1000000 --threads 4 | $F check");
  EXPECT_NE(out.find("OK"), std::string::npos) << out;
  EXPECT_NE(out.find("1000000"), std::string::npos) << out;
  std::string const custom = "--from 99999999999999999990 --rule 2:a --rule 3:bb --rule 7:ccc";
  EXPECT_NE(ok("$F " + custom + " --count 100000 | $F check " + custom).find("OK"), std::string::npos);
}

/// The allowed CPUs of this process.
unsigned allowed_cpus_here() {
  cpu_set_t set;
  CPU_ZERO(&set);
  return ::sched_getaffinity(0, sizeof set, &set) == 0 ? static_cast<unsigned>(CPU_COUNT(&set)) : 1;
}

/// Runs each command (a shell pipeline whose last process is the one watched) in the background
/// at once, and returns, for each, the most threads its last process had, looked at every 20 ms
/// for about 1.5 s. The commands must keep their input open longer than that (sleep 4), so that
/// the count is taken while each waits for the rest of it, whatever their start-up took.
std::vector<unsigned> E2E::most_threads(std::vector<std::string> const& commands) {
  std::string script = "pids=(); ";
  for (std::string const& c : commands) script += c + " >/dev/null & pids+=($!); ";
  script +=
      "most=(); for i in $(seq 75); do for k in \"${!pids[@]}\"; do "
      "n=$(ls /proc/${pids[k]}/task 2>/dev/null | wc -l); (( n > ${most[k]:-0} )) && most[k]=$n; done; "
      "sleep 0.02; done; echo \"${most[@]}\"; wait";
  std::istringstream in(ok(script, 60s));
  std::vector<unsigned> most(commands.size(), 0);
  for (unsigned& m : most) in >> m;
  return most;
}

TEST_F(E2E, CheckLeavesTheWriterOfAPipeACpu) {
  // Without -j, check from a pipe (or a named one) verifies on one CPU fewer than it may use: the
  // writer needs one.
  unsigned const cpus = allowed_cpus_here();
  if (cpus < 2) GTEST_SKIP() << "one CPU: nothing to leave";
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0600), 0);
  std::string const input = "{ $F --count 10; sleep 4; }";
  std::vector<unsigned> const most = most_threads(
      {input + " | $F check --count 10", input + " >fifo & $F check --count 10 fifo",
       input + " | $F check -j " + std::to_string(cpus) + " --count 10", input + " | $F check -j 2 --count 10"});
  // Threads of the runtime's own once a process has two (ThreadSanitizer starts one then).
  unsigned const others = most[3] - 2;
  EXPECT_LE(most[0], cpus - 1 + others) << "from a pipe";
  EXPECT_LE(most[1], cpus - 1 + others) << "from a named pipe";
  EXPECT_GT(most[2], most[0]) << "-j " << cpus << " runs more";
}

TEST_F(E2E, ThreadsPastTheCpusDoNotRun) {
  // check and morse run at most one thread a CPU, whatever -j asks (FIZZGEN_EXACT_THREADS=1, set
  // for the other tests, runs them all).
  unsigned const cpus = allowed_cpus_here();
  if (cpus < 2) GTEST_SKIP() << "one CPU";  // the count is calibrated on a process of two threads
  std::string const more = std::to_string(cpus + 3);
  std::vector<std::string> commands;
  for (std::string const exact : {"", "1"}) {
    std::string const env = " | FIZZGEN_EXACT_THREADS=" + exact + " ";
    commands.push_back("{ $F --count 10; sleep 4; }" + env + "$F check --count 10 -j " + more);
    commands.push_back("{ echo hello; sleep 4; }" + env + "$F morse encode -j " + more);
    commands.push_back("{ echo '.... ..'; sleep 4; }" + env + "$F morse decode -j " + more);
  }
  commands.push_back("{ $F --count 10; sleep 4; } | $F check --count 10 -j 2");
  std::vector<unsigned> const most = most_threads(commands);
  // Threads of the runtime's own once a process has two (ThreadSanitizer starts one then).
  unsigned const others = most[6] - 2;
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_LE(most[i], cpus + others) << commands[i];
    EXPECT_GT(most[i + 3], cpus + others) << commands[i + 3];
  }
}

TEST_F(E2E, CheckFailsOnACorruptedLine) {
  std::string const& all = classic_from_one(1000);
  std::size_t offset = 0;  // byte offset of line 500
  for (int line = 1; line < 500; ++line) offset = all.find('\n', offset) + 1;
  outcome const o = sh("$F --count 1000 | sed '500s/.*/WRONG/' | $F check");
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_NE(o.err.find("500"), std::string::npos) << o.err;
  EXPECT_NE(o.err.find(std::to_string(offset)), std::string::npos) << o.err;
  EXPECT_EQ(count_lines(o.err), 1u) << o.err;
}

TEST_F(E2E, CheckFailsOnAMissingLineAndWrongStart) {
  outcome const missing = sh("$F --count 1000 | sed '777d' | $F check");
  EXPECT_EQ(missing.status, 1);
  EXPECT_NE(missing.err.find("777"), std::string::npos) << missing.err;
  outcome const wrong_from = sh("$F --from 2 --count 10 | $F check");
  EXPECT_EQ(wrong_from.status, 1);
  EXPECT_FALSE(wrong_from.err.empty());
  outcome const wrong_rules = sh("$F --count 100 --rule 3:Fizz | $F check");
  EXPECT_EQ(wrong_rules.status, 1);
}

TEST_F(E2E, CheckRefusesAToThatNoStreamReaches) {
  // 2^64 lines or more after --from: refused at once, rather than checked without a count (any
  // length would then pass). 2^64 - 1 lines is a count like any other.
  for (std::string const to : {"18446744073709551616", "2^64", "2^64+1", "10^30", "2^70"}) {
    outcome const o = sh("$F --count 3 | $F check --to " + to);
    EXPECT_EQ(o.status, 2) << to;
    EXPECT_EQ(o.out, "") << to;
    EXPECT_NE(o.err.find("--to: '" + to + "' is 2^64 lines or more from --from 1"), std::string::npos) << o.err;
  }
  outcome const most = sh("$F --count 3 | $F check --to 2^64-1");
  EXPECT_EQ(most.status, 1) << most.err;  // 2^64 - 1 lines asked for, 3 arrived: a lost tail
  EXPECT_EQ(sh("$F --from 2 --count 3 | $F check --from 2 --to 2^64").status, 1);  // the same from 2
  EXPECT_NE(ok("$F --from 2 --count 3 | $F check --from 2 --to 4").find("OK"), std::string::npos);
}

TEST_F(E2E, CheckCatchesSubtleCorruption) {
  // One digit changed deep in a big stream; a word misspelt near its end.
  ASSERT_EQ(oracle::fizzbuzz_line("123458", oracle::classic()), "123458\n");
  outcome const digit = sh("$F --count 300000 | sed '123458s/8/9/' | $F check");
  EXPECT_EQ(digit.status, 1) << digit.out;
  EXPECT_NE(digit.err.find("123458"), std::string::npos) << digit.err;
  ASSERT_EQ(oracle::fizzbuzz_line("299997", oracle::classic()), "Fizz\n");
  outcome const fizz = sh("$F --count 300000 | sed '299997s/Fizz/Fuzz/' | $F check");
  EXPECT_EQ(fizz.status, 1) << fizz.out;
  EXPECT_NE(fizz.err.find("299997"), std::string::npos) << fizz.err;
}

TEST_F(E2E, CheckAcceptsACutOffFinalLine) {
  for (char const* bytes : {"1", "1000", "12345", "1M"}) {
    std::string const out = ok(std::string("$F --bytes ") + bytes + " --threads 2 | $F check");
    EXPECT_NE(out.find("OK"), std::string::npos) << bytes << ": " << out;
  }
  // A cut-off line that is not a prefix of the expected one still fails.
  EXPECT_NE(ok("printf '1\\n2\\nFiz' | $F check").find("OK"), std::string::npos);
  outcome const o = sh("printf '1\\n2\\nFuz' | $F check");
  EXPECT_EQ(o.status, 1) << o.out << o.err;
  EXPECT_EQ(o.out, "");
}

TEST_F(E2E, CheckFailsAtOnceOnALineWithoutNewline) {
  // With more than one thread this took quadratic time and held the whole line: 400 MB of NULs
  // took 14 s and 1.2 GB, and </dev/zero ran out of memory. Now the line is bad after a few
  // hundred bytes, in every thread count.
  std::string nuls;
  for (std::size_t i = 0; i < 200; ++i) nuls += "\\x00";
  std::string const report = "fizzgen check: line 1 (byte offset 0): expected '1', got '" + nuls + "...'\n";
  for (char const* threads : {"", " --threads 1", " --threads 2", " --threads 4"}) {
    for (char const* input : {"head -c 400M /dev/zero | ", "</dev/zero "}) {
      std::string const cmd = input + std::string("$F check") + threads;
      outcome const o = sh(cmd, scaled(20s));
      EXPECT_EQ(o.status, 1) << cmd << ": " << o.err;
      EXPECT_EQ(o.out, "") << cmd;
      EXPECT_EQ(o.err, report) << cmd;
      EXPECT_LT(o.seconds, scaled(5s).count()) << cmd;
    }
  }
  // The endless line after a million good ones, and digits that look like the next number.
  std::string const& good = classic_from_one(1000000);
  for (char const* tail : {"cat /dev/zero", "yes 1 | tr -d '\\n'"}) {
    std::string const cmd = "{ $F --count 1000000; " + std::string(tail) + "; } | $F check";
    outcome const o = sh(cmd, scaled(20s));
    EXPECT_EQ(o.status, 1) << cmd << ": " << o.err;
    EXPECT_EQ(o.err.rfind("fizzgen check: line 1000001 (byte offset " + std::to_string(good.size()) +
                              "): expected '1000001', got '",
                          0),
              0u)
        << cmd << ": " << o.err;
    EXPECT_EQ(count_lines(o.err), 1u) << cmd << ": " << o.err;
    EXPECT_LT(o.seconds, scaled(5s).count()) << cmd;
  }
}

TEST_F(E2E, HugeStartNumber) {
  std::string const from = std::string(1000, '9');
  std::string const cmd = "$F --count 40 --from " + from;
  EXPECT_EQ(oracle::first_difference(ok(cmd), oracle::fizzbuzz_lines(from, 40)), "");
  EXPECT_NE(ok(cmd + " | $F check --from " + from).find("OK"), std::string::npos);
}

TEST_F(E2E, EmptyStreams) {
  EXPECT_EQ(ok("$F --count 0"), "");
  EXPECT_EQ(ok("$F yes --count 0"), "");
  EXPECT_EQ(ok("$F yes --bytes 0"), "");
  EXPECT_EQ(ok("$F --count 0 | wc -c"), "0\n");
}

// ---- kernels, reuse policies, measurement modes -------------------------------------------------

TEST_F(E2E, EveryArchGivesTheOracleBytes) {
  // `--list-archs` lines: NAME, then "available" (perhaps "(default)") or something else.
  std::string const list = ok("$F --list-archs");
  std::vector<std::string> archs;
  std::size_t pos = 0;
  while (pos < list.size()) {
    std::size_t const eol = std::min(list.find('\n', pos), list.size());
    std::string const line = list.substr(pos, eol - pos);
    pos = eol + 1;
    std::size_t const gap = line.find(' ');
    if (gap == std::string::npos) continue;
    std::size_t const word = line.find_first_not_of(' ', gap);
    if (word != std::string::npos && line.compare(word, 9, "available") == 0) archs.push_back(line.substr(0, gap));
  }
  ASSERT_FALSE(archs.empty()) << list;
  EXPECT_NE(std::find(archs.begin(), archs.end(), "scalar"), archs.end()) << list;
  std::string const& want = classic_from_one(300000);
  std::string const far_from = "99999999999999999000";
  std::string const far = oracle::fizzbuzz_lines(far_from, 3000);
  for (auto const& arch : archs) {
    EXPECT_EQ(oracle::first_difference(ok("$F --arch " + arch + " --count 300000 --threads 2"), want), "") << arch;
    EXPECT_EQ(oracle::first_difference(ok("FIZZGEN_ARCH=" + arch + " $F --from " + far_from + " --count 3000"), far),
              "")
        << arch;
    EXPECT_NE(ok("$F --arch " + arch + " --count 1M --threads 2 | pv -q | $F check").find("OK"), std::string::npos)
        << arch;
  }
}

TEST_F(E2E, ReuseAlwaysWithReadersThatCopy) {
  // `always` rewrites a buffer in place once the pipe's slots turned over; readers that read(2)
  // (check, dd) have copied it by then. A 16 KiB pipe turns over every few chunks.
  for (char const* threads : {" --threads 1", " --threads 2"}) {
    std::string const gen = std::string("$F --count 2000000 --reuse always --pipe-size 16K") + threads;
    EXPECT_NE(ok(gen + " | $F check").find("OK"), std::string::npos) << gen;
    ok(gen + " | dd bs=16k status=none > out");
    EXPECT_EQ(oracle::first_difference(read_file(path("out")), classic_from_one(2000000)), "") << gen;
  }
}

TEST_F(E2E, ReuseNeverThroughPv) {
  std::string const out = ok("$F --count 2000000 --reuse never --threads 2 --pipe-size 64K | pv -q | $F check");
  EXPECT_NE(out.find("OK"), std::string::npos) << out;
}

// Into a pipe, workers beyond one fewer than the CPUs would leave the reader no CPU of its own;
// into a file or with --generate-only, workers beyond one a CPU would take turns on a CPU: they
// are not started, and --stats says how many were asked for.
TEST_F(E2E, WorkersLeaveTheReaderACpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  int const cpus = CPU_COUNT(&allowed);
  unsigned const at_work = std::min<unsigned>(7, cpus > 1 ? static_cast<unsigned>(cpus - 1) : 1);
  std::string const piped =
      ok("FIZZGEN_EXACT_THREADS= $F --threads 7 --count 300000 --stats 2>stats | cat >/dev/null && cat stats");
  EXPECT_NE(piped.find("threads " + std::to_string(at_work) + " (pinned"), std::string::npos) << piped;
  if (at_work < 7) {
    EXPECT_NE(piped.find("threads: 7 asked for, " + std::to_string(at_work) + " at work"), std::string::npos) << piped;
  }
  // The stream is the same whoever writes it.
  EXPECT_NE(ok("FIZZGEN_EXACT_THREADS= $F --threads 7 --count 300000 | $F check --count 300000").find("OK"),
            std::string::npos);
  unsigned const one_a_cpu = std::min<unsigned>(7, static_cast<unsigned>(cpus));
  for (char const* where : {">file", "--generate-only"}) {
    std::string const alone =
        ok(std::string("FIZZGEN_EXACT_THREADS= $F --threads 7 --count 300000 --stats 2>&1 ") + where);
    EXPECT_NE(alone.find("threads " + std::to_string(one_a_cpu) + " (pinned"), std::string::npos) << alone;
    if (one_a_cpu < 7) {
      EXPECT_NE(alone.find("threads: 7 asked for, " + std::to_string(one_a_cpu) + " at work"), std::string::npos)
          << alone;
    }
  }
  // FIZZGEN_EXACT_THREADS=1 starts every worker asked for (the tests' hand-off on few CPUs).
  std::string const exact = ok("FIZZGEN_EXACT_THREADS=1 $F --threads 7 --count 300000 --stats 2>&1 >file");
  EXPECT_NE(exact.find("threads 7 (pinned"), std::string::npos) << exact;
  EXPECT_EQ(exact.find("asked for"), std::string::npos) << exact;
}

// With one worker into a pipe and a CPU beside it, --helper on puts a helper to work on the
// reader's CPU: the stream stays exact, and --stats and --json say what the helper did; --helper
// off starts none; anything else is a usage error.
TEST_F(E2E, HelperOnTheReadersCpu) {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  ASSERT_EQ(::sched_getaffinity(0, sizeof allowed, &allowed), 0);
  bool const two_cpus = CPU_COUNT(&allowed) >= 2;
  std::string const on =
      ok("$F -j1 --helper on --bytes 64M --stats --json on.json 2>on.err | $F check --bytes 64M && cat on.err");
  EXPECT_NE(on.find("OK: "), std::string::npos) << on;
  auto const on_json = parse_json(read_file(path("on.json")));
  // The helper needs a CPU beside the worker's and pages the pipe shares (vmsplice).
  if (two_cpus && on.find("output vmsplice") != std::string::npos && on.find("kernel copies") == std::string::npos) {
    EXPECT_NE(on.find("helper (cpu "), std::string::npos) << on;
    EXPECT_NE(on.find("at work throughout (--helper on)"), std::string::npos) << on;
    ASSERT_TRUE(on_json.contains("helper") && on_json["helper"].is_object()) << read_file(path("on.json"));
    EXPECT_EQ(on_json["helper"].value("mode", ""), "on");
  } else {
    EXPECT_EQ(on.find("helper (cpu "), std::string::npos) << on;
  }
  if (!kSanitized && two_cpus && on.find("output vmsplice") != std::string::npos &&
      on.find("kernel copies") == std::string::npos) {
    // Its first buffers go out before the first scan of the readers has ended, so they cannot be
    // rewritten in place: the worker gives them fresh pages and the helper goes on past its
    // buffers (it used to stop there, 9 runs in 10). At idle priority it may get no CPU on a
    // loaded machine (under a sanitizer beside other tests it filled 3): a few tries, and not
    // under the sanitizers.
    std::uint64_t helper_chunks = 0, buffers = 0;
    for (int attempt = 0; attempt < 6 && (buffers == 0 || helper_chunks <= buffers); ++attempt) {
      ok("$F -j1 --helper on --bytes 256M --json far.json | $F sink 2>/dev/null");
      auto const far = parse_json(read_file(path("far.json")));
      ASSERT_TRUE(far.contains("helper") && far["helper"].is_object()) << read_file(path("far.json"));
      helper_chunks = far["helper"].value("filled", std::uint64_t{0}) + far["helper"].value("late", std::uint64_t{0});
      buffers = far["helper"].value("buffers", std::uint64_t{0});
    }
    // --reuse auto (the default): the lead of 4 and four more (engine/run.cpp).
    EXPECT_EQ(buffers, 8u);
    EXPECT_GT(helper_chunks, buffers) << "the helper stopped after its buffers: " << read_file(path("far.json"));
  }
  std::string const off =
      ok("$F -j1 --helper off --bytes 64M --stats --json off.json 2>off.err | $F check --bytes 64M && cat off.err");
  EXPECT_NE(off.find("OK: "), std::string::npos) << off;
  EXPECT_EQ(off.find("helper (cpu "), std::string::npos) << off;
  auto const off_json = parse_json(read_file(path("off.json")));
  ASSERT_TRUE(off_json.contains("helper"));
  EXPECT_TRUE(off_json["helper"].is_null());
  outcome const bad = sh("$F --helper sometimes -c 10");
  EXPECT_EQ(bad.status, 2);
  EXPECT_TRUE(bad.out.empty());
  EXPECT_NE(bad.err.find("--helper: 'sometimes' is not a choice (use auto, on or off)"), std::string::npos) << bad.err;
}

// --stall pauses the writer at every N bytes (not after the last byte), --burst leaves windows
// of silence; the stream arrives whole either way.
TEST_F(E2E, StallsAndBurstsPauseTheWriterAndLoseNothing) {
  auto const start = std::chrono::steady_clock::now();
  std::string const stalled = ok("$F --bytes 3M --stall 1M:200ms --stats 2>stats | $F check --bytes 3M && cat stats");
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(400));
  EXPECT_NE(stalled.find("OK"), std::string::npos) << stalled;
  EXPECT_NE(stalled.find("pauses: --stall 1M:200ms, 2 stalls"), std::string::npos) << stalled;
  std::string const seeded = ok("$F --bytes 1M --stall random:64K:1ms --seed 9 --stats 2>&1 >/dev/null");
  EXPECT_NE(seeded.find("pauses: --stall random:64K:1ms --seed 9, "), std::string::npos) << seeded;
  std::string const bursts =
      ok("$F --burst 50ms/100ms --duration 400ms --stats 2>stats | $F check && cat stats", std::chrono::seconds(20));
  EXPECT_NE(bursts.find("OK"), std::string::npos) << bursts;
  EXPECT_NE(bursts.find("bursts: --burst 50ms/100ms, "), std::string::npos) << bursts;
  EXPECT_EQ(bursts.find(", 0 windows of silence"), std::string::npos) << bursts;
}

// fizzgen random and check --random: the payload through a forwarding reader, cut into odd writes
// by two workers, arrives whole; a wrong seed, a lost tail and extra bytes fail.
TEST_F(E2E, RandomPayloadIsCheckedByItsSeed) {
  EXPECT_NE(
      ok("$F random --seed 7 --bytes 10M | pv -q | $F check --random --seed 7 --bytes 10M").find("OK: 10485760 bytes"),
      std::string::npos);
  EXPECT_NE(ok("$F random --seed 7 --bytes 10M --threads 2 --write-size random:1..70000 | "
               "$F check --random --seed 7 --bytes 10M")
                .find("OK"),
            std::string::npos);
  outcome const wrong = sh("$F random --seed 7 --bytes 1M | $F check --random --seed 8");
  EXPECT_EQ(wrong.status, 1);
  EXPECT_NE(wrong.out.find("FAIL: byte 0 "), std::string::npos) << wrong.out;
  outcome const changed = sh("{ $F random --seed 7 --bytes 1000; printf x; } | $F check --random --seed 7");
  EXPECT_EQ(changed.status, 1);
  EXPECT_NE(changed.out.find("FAIL: byte 1000 "), std::string::npos) << changed.out;
  outcome const lost = sh("$F random --seed 7 --bytes 1M | head -c 999999 | $F check --random --seed 7 --bytes 1M");
  EXPECT_EQ(lost.status, 1);
  EXPECT_NE(lost.out.find("999999 bytes arrived, 1048576 expected"), std::string::npos) << lost.out;
  // The seed in use, when none was given, is the one --stats prints.
  outcome const fresh = sh("$F random --bytes 4096 --stats 2>stats >out && cat stats");
  std::size_t const at = fresh.out.find("seed: --seed ");
  ASSERT_NE(at, std::string::npos) << fresh.out;
  std::string const seed = fresh.out.substr(at + 13, fresh.out.find('\n', at) - at - 13);
  EXPECT_NE(ok("$F check --random --seed " + seed + " --bytes 4096 out").find("OK"), std::string::npos);
  for (char const* bad : {"$F random --count 5", "$F check --random </dev/null", "$F check --seed 3 </dev/null",
                          "$F check --random --seed 1 --count 2 </dev/null"}) {
    outcome const o = sh(bad);
    EXPECT_EQ(o.status, 2) << bad << ": " << o.err;
    EXPECT_TRUE(o.out.empty()) << bad;
  }
}

// check --yes verifies yes lines (GNU yes's too), with --count and --bytes as for FizzBuzz;
// check --decoded the FizzBuzz stream in Morse, decoded, without spelling out the upper-case rules.
TEST_F(E2E, CheckVerifiesYesLinesAndDecodedMorse) {
  EXPECT_NE(ok("$F yes --count 100000 | $F check --yes --count 100000").find("OK: 100000 lines"), std::string::npos);
  EXPECT_NE(ok("yes | head -n 1000 | $F check --yes --count 1000").find("OK"), std::string::npos);
  EXPECT_NE(ok("$F yes hello world -c 1M | pv -q | $F check --yes --line 'hello world' -c 1M").find("OK"),
            std::string::npos);
  for (auto const& [cmd, says] :
       {std::pair<std::string, std::string>{"$F yes -n 5 | $F check --yes --line n", "line 1 (byte 0)"},
        {"{ $F yes -n 5; echo x; } | $F check --yes", "line 6 (byte 10): expected \"y\", got \"x\""},
        {"$F yes -n 5 | $F check --yes --count 6", "5 lines arrived, 6 expected"},
        {"$F yes -c 7 | $F check --yes", "the last line (4) is cut short"},
        {"$F check --yes </dev/null", "nothing arrived"}}) {
    outcome const o = sh(cmd);
    EXPECT_EQ(o.status, 1) << cmd;
    EXPECT_NE(o.out.find(says), std::string::npos) << cmd << ": " << o.out;
  }
  EXPECT_NE(ok("$F morse --count 100000 | $F morse decode | $F check --decoded --count 100000").find("OK"),
            std::string::npos);
  EXPECT_NE(ok("$F morse -n 1000 --rule 2:Even --rule '7:Se&v*n' | $F morse decode | "
               "$F check --decoded --rule 2:Even --rule '7:Se&v*n' --count 1000")
                .find("OK"),
            std::string::npos);
  EXPECT_EQ(sh("$F morse --count 100 | $F morse decode | $F check --count 100").status, 1);  // FIZZ is not Fizz
  for (char const* bad : {"$F check --yes --rule 3:a </dev/null", "$F check --yes --random --seed 1 </dev/null",
                          "$F check --line y </dev/null", "$F check --yes --decoded </dev/null"}) {
    outcome const o = sh(bad);
    EXPECT_EQ(o.status, 2) << bad << ": " << o.err;
    EXPECT_TRUE(o.out.empty()) << bad;
  }
}

// yes --line-length: lines of one length (the words cycled and cut) or of lengths drawn with the
// seed; check --yes verifies both with the same options, on one thread or several, through pv.
TEST_F(E2E, YesLineLengthsAreVerifiedByCheck) {
  EXPECT_EQ(ok("$F yes --line-length 5 -n 2"), "yyyy\nyyyy\n");
  EXPECT_EQ(ok("$F yes ab c --line-length 8 -n 2"), "ab cab \nab cab \n");
  EXPECT_EQ(ok("$F yes --line-length 1 -n 3"), "\n\n\n");
  std::string want;
  for (int i = 0; i < 1000; ++i) want += oracle::cycled_line("hello world", 33);
  EXPECT_EQ(oracle::first_difference(ok("$F yes hello world --line-length 33 -n 1000"), want), "");
  EXPECT_EQ(oracle::first_difference(ok("$F yes hello --line-length random:1..300 --seed 7 -n 20000"),
                                     oracle::yes_random_length_lines("hello", 1, 300, 7, 20000)),
            "");
  // The same seed, the same stream, whatever the thread count; --stats prints the seed.
  EXPECT_EQ(ok("$F yes --line-length random:10..5K --seed 3 -c 3M -j 1 | md5sum"),
            ok("$F yes --line-length random:10..5K --seed 3 -c 3M -j 2 | md5sum"));
  EXPECT_NE(ok("$F yes --line-length random:1..9 --seed 99 -n 10 --stats 2>&1 >/dev/null").find("99"),
            std::string::npos);
  for (char const* threads : {" --threads 1", " --threads 3", ""}) {
    std::string const t = threads;
    EXPECT_NE(ok("$F yes --line-length 80 -n 100000 | $F check --yes --line-length 80 -n 100000" + t)
                  .find("OK: 100000 lines, 8000000 bytes"),
              std::string::npos);
    EXPECT_NE(ok("$F yes --line-length random:1..4K --seed 5 -n 20000 | pv -q | "
                 "$F check --yes --line-length random:1..4K --seed 5 -n 20000" +
                 t)
                  .find("OK: 20000 lines"),
              std::string::npos);
    EXPECT_NE(ok("$F yes x --line-length random:1..100 --seed 5 -c 1M --write-size random:1..9000 | "
                 "$F check --yes --line x --line-length random:1..100 --seed 5 -c 1M" +
                 t)
                  .find("OK"),
              std::string::npos);
    EXPECT_NE(ok("$F random --seed 11 -c 5M | $F check --random --seed 11 -c 5M" + t).find("OK: 5242880 bytes"),
              std::string::npos);
  }
  for (auto const& [cmd, says] :
       {std::pair<std::string, std::string>{
            "$F yes --line-length random:1..50 --seed 5 -n 100 | $F check --yes --line-length random:1..50 --seed 6",
            "line 1 (byte 0)"},
        {"$F yes --line-length 4 -n 3 | $F check --yes --line-length 5",
         "line 1 (byte 0): expected \"yyyy\", got \"yyy\""},
        {"{ $F yes --line-length 3 -n 2000000; echo x; } | $F check --yes --line-length 3 -j 3",
         "line 2000001 (byte 6000000): expected \"yy\", got \"x\""},
        {"{ $F yes --line-length random:2..9 --seed 1 -n 300000; echo; } | "
         "$F check --yes --line-length random:2..9 --seed 1 -j 3",
         "line 300001"},
        {"$F yes --line-length random:2..9 --seed 1 -n 30 | $F check --yes --line-length random:2..9 --seed 1 -n 31",
         "30 lines arrived, 31 expected"},
        {"{ $F random --seed 2 -c 3M; printf x; } | $F check --random --seed 2 -j 3", "byte 3145728 (word 393216)"}}) {
    outcome const o = sh(cmd);
    EXPECT_EQ(o.status, 1) << cmd;
    EXPECT_NE(o.out.find(says), std::string::npos) << cmd << ": " << o.out;
  }
  for (char const* bad :
       {"$F yes --line-length 0", "$F yes --line-length 2M", "$F yes --line-length random:9..3",
        "$F yes --line-length random:5", "$F yes --line-length 5x", "$F yes '' --line-length 3",
        "$F yes --line-length 5 --seed 3", "$F --line-length 5", "$F check --yes --line-length random:1..5 </dev/null",
        "$F check --line-length 5 </dev/null", "$F check --yes --line-length 5 --seed 1 </dev/null"}) {
    outcome const o = sh(bad);
    EXPECT_EQ(o.status, 2) << bad << ": " << o.err;
    EXPECT_TRUE(o.out.empty()) << bad;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << bad << ": " << o.err;
  }
}

// check --morse: the Morse FizzBuzz stream itself, line for line, any rules and start, on one
// thread or several; a changed symbol, a space too many and a lost tail fail with the Morse line.
TEST_F(E2E, CheckVerifiesTheMorseStream) {
  for (char const* threads : {" -j 1", " -j 3"}) {
    std::string const t = threads;
    EXPECT_NE(ok("$F morse -n 200000 | $F check --morse -n 200000" + t).find("OK: 200000 lines"), std::string::npos);
    EXPECT_NE(ok("$F morse --from 99999999999999999990 -n 1000 --rule 2:Even --rule '7:Se&v*n x' | pv -q | "
                 "$F check --morse --from 99999999999999999990 --rule 2:Even --rule '7:Se&v*n x' -n 1000" +
                 t)
                  .find("OK"),
              std::string::npos);
    std::string const bytes = std::to_string(ok("$F morse -n 5000").size());
    EXPECT_NE(ok("$F morse -n 5000 | $F check --morse -n 5000" + t).find(bytes + " bytes"), std::string::npos);
  }
  for (auto const& [cmd, says] :
       {std::pair<std::string, std::string>{"$F morse -n 3 | sed '3s/--\\.\\.$/--.-/' | $F check --morse",
                                            "line 3 (byte offset 12): expected '..-. .. --.. --..', got "
                                            "'..-. .. --.. --.-'"},
        {"$F morse -n 3 | sed '2s/ / /;2s/^/ /' | $F check --morse", "line 2 (byte offset 6)"},
        {"$F morse -n 10 | sed '3s/ /  /' | $F check --morse", "line 3"},
        {"$F morse -n 10 | sed '3s/$/ /' | $F check --morse", "line 3"},
        {"$F morse -n 10 | $F check --morse -n 11", "10 lines"},
        {"$F -n 10 | $F check --morse", "line 1 (byte offset 0)"},
        {"$F morse -n 300000 | sed '250000s/^/./' | $F check --morse -j 3", "line 250000"}}) {
    outcome const o = sh(cmd);
    EXPECT_EQ(o.status, 1) << cmd;
    EXPECT_NE(o.err.find(says), std::string::npos) << cmd << ": " << o.err;
  }
  for (char const* bad : {"$F check --morse --decoded </dev/null", "$F check --morse --bytes 5 </dev/null",
                          "$F check --morse --yes </dev/null", "$F check --morse --random --seed 1 </dev/null"}) {
    outcome const o = sh(bad);
    EXPECT_EQ(o.status, 2) << bad << ": " << o.err;
    EXPECT_TRUE(o.out.empty()) << bad;
  }
}

// --interval: one JSON line per interval, back to back, whose bytes add up to the summary's, then
// the summary; stalls counted; --report FILE instead of stderr, checked before the run.
/// The lines of an --interval report: the intervals, back to back, adding up to the summary's
/// bytes; returns the summary.
nlohmann::ordered_json interval_summary(std::string const& report) {
  std::vector<nlohmann::ordered_json> lines;
  for (std::size_t at = 0, end; (end = report.find('\n', at)) != std::string::npos; at = end + 1)
    lines.push_back(parse_json(report.substr(at, end - at)));
  if (lines.empty()) {
    ADD_FAILURE() << "no lines: " << report;
    return {};
  }
  std::uint64_t bytes = 0;
  double end = 0;
  for (std::size_t i = 0; i + 1 < lines.size(); ++i) {
    auto const& l = lines[i];
    EXPECT_TRUE(l.contains("interval")) << l.dump();
    EXPECT_DOUBLE_EQ(l["interval"].value("start", -1.0), end) << "intervals are back to back";
    end = l["interval"].value("end", 0.0);
    bytes += l.value("bytes", 0u);
    EXPECT_EQ(l.value("total_bytes", 0u), bytes);
  }
  nlohmann::ordered_json summary = lines.back().value("summary", nlohmann::ordered_json::object());
  EXPECT_EQ(summary.value("bytes", 0u), bytes) << report;
  return summary;
}

TEST_F(E2E, IntervalReportsAddUpToTheSummary) {
  std::string const err =
      ok("$F --bytes 3M --stall 1M:150ms --interval 100ms 2>err | $F check --bytes 3M >/dev/null && cat err");
  EXPECT_GE(count_lines(err), 3u) << err;  // two stalls of 150 ms: at least two intervals, then the summary
  nlohmann::ordered_json const summary = interval_summary(err);
  ASSERT_FALSE(summary.empty()) << err;
  EXPECT_EQ(summary.value("status", ""), "ok");
  EXPECT_EQ(summary.value("bytes", 0u), 3u << 20);
  EXPECT_EQ(summary.value("stalls", 0u), 2u);
  std::string const quiet = ok("$F --bytes 1M --interval 1s --report rep 2>err | $F check -c 1M >/dev/null && cat err");
  EXPECT_EQ(quiet.find("interval"), std::string::npos) << quiet;
  EXPECT_NE(read_file(path("rep")).find("\"summary\""), std::string::npos);
  for (char const* bad :
       {"$F -n 1 --report rep", "$F -n 1 --interval 1s --report /nonexistent/x", "$F -n 1 --interval 0"}) {
    outcome const o = sh(bad);
    EXPECT_EQ(o.status, 2) << bad << ": " << o.err;
    EXPECT_TRUE(o.out.empty()) << bad;
  }
}

TEST_F(E2E, ReadersReportIntervalsAndCheckReadsInAPattern) {
  // The receiving side reports as the sender does: check (reading in seeded random sizes, on two
  // threads) and sink, each beside the stream's own report.
  ok("$F --bytes 3M --stall 1M:150ms --interval 100ms --report tx | "
     "$F check --bytes 3M --read-size random:1..64K --seed 9 -j 2 --interval 100ms --report rx >out");
  EXPECT_NE(read_file(path("out")).find("OK"), std::string::npos);
  nlohmann::ordered_json const tx = interval_summary(read_file(path("tx")));
  nlohmann::ordered_json const rx = interval_summary(read_file(path("rx")));
  EXPECT_EQ(tx.value("bytes", 0u), 3u << 20);
  EXPECT_EQ(rx.value("bytes", 0u), 3u << 20);
  EXPECT_EQ(rx.value("status", ""), "ok");
  EXPECT_TRUE(rx["lines"].is_null()) << rx.dump();  // a reader counts bytes only
  std::string const sunk = ok("$F --bytes 3M --stall 1M:150ms | $F sink -q --interval 100ms 2>&1");
  nlohmann::ordered_json const sink = interval_summary(sunk);
  EXPECT_EQ(sink.value("bytes", 0u), 3u << 20);
  EXPECT_EQ(sink.value("status", ""), "ok");
  // A check that fails says so in its summary; the list pattern reads the same stream as well.
  outcome const lost =
      sh("$F --count 1000 | head -c 100 | $F check --count 1000 --read-size 7,4096,1 "
         "--interval 1s --report rx2");
  EXPECT_EQ(lost.status, 1) << lost.err;
  EXPECT_EQ(interval_summary(read_file(path("rx2"))).value("status", ""), "failed");
  ok("$F --count 100000 | $F check --count 100000 --read-size 7,4096,1 -j 1 >/dev/null");
  for (char const* bad :
       {"$F check --read-size random:1..5 </dev/null", "$F check --read-size 0 </dev/null",
        "$F check --interval 0 </dev/null", "$F check --report rep </dev/null", "$F sink --interval 0 </dev/null",
        "$F sink --report rep </dev/null", "$F sink --interval 1s --report /nonexistent/x </dev/null"}) {
    outcome const o = sh(bad);
    EXPECT_EQ(o.status, 2) << bad << ": " << o.err;
    EXPECT_TRUE(o.out.empty()) << bad;
    EXPECT_EQ(count_lines(o.err), 1u) << bad << ": " << o.err;
  }
}

TEST_F(E2E, StatsGoToStderrOnly) {
  outcome const o = sh("$F --count 100000 --stats --threads 2 | cat > out");
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_FALSE(o.err.empty());
  EXPECT_EQ(oracle::first_difference(read_file(path("out")), classic_from_one(100000)), "");
  outcome const y = sh("$F yes --bytes 100000 --stats > out");
  EXPECT_EQ(y.status, 0) << y.err;
  EXPECT_FALSE(y.err.empty());
  EXPECT_EQ(oracle::first_difference(read_file(path("out")), oracle::yes_bytes({}, 100000)), "");
}

TEST_F(E2E, IdleCpusPollOnlyWhileAReaderWaits) {
  // Into a pipe the stream asks for a CPU latency limit of 0 us (engine/idle_poll.hpp) where the
  // device can be written (as root), and then starts the helper at rest under --helper auto.
  bool const writable = ::access("/dev/cpu_dma_latency", W_OK) == 0;
  std::string const piped = ok("$F --bytes 64M --stats --json p.json 2>p.err | $F check --bytes 64M && cat p.err");
  EXPECT_NE(piped.find("OK: "), std::string::npos) << piped;
  auto const json = parse_json(read_file(path("p.json")));
  ASSERT_TRUE(json.contains("idle_poll")) << read_file(path("p.json"));
  EXPECT_EQ(json["idle_poll"].value("held", !writable), writable) << piped;
  if (writable) {
    EXPECT_NE(piped.find("idle CPUs: polling while the stream ran (CPU latency limit 0 us, /dev/cpu_dma_latency)"),
              std::string::npos)
        << piped;
    // Where a helper runs (one worker, a CPU beside it), --helper auto starts it at rest.
    if (piped.find("helper (cpu ") != std::string::npos) {
      EXPECT_NE(piped.find("the helper beside the reader (--helper auto) starts at rest"), std::string::npos) << piped;
    }
    // Held while the stream runs: once the first bytes have come (the stream has begun) the
    // reader looks at the writer's descriptors before reading on, so the writer is still there.
    std::string const look = "{ head -c 1 >/dev/null; ls -l /proc/$(cat pid)/fd; cat >/dev/null; }";
    std::string const fds = ok("sh -c 'echo $$ >pid; exec \"$0\" --bytes 256M' \"$F\" | " + look);
    EXPECT_NE(fds.find("/dev/cpu_dma_latency"), std::string::npos) << fds;
    std::string const off_fds =
        ok("rm -f pid; sh -c 'echo $$ >pid; exec \"$0\" --bytes 256M --idle-poll off' \"$F\" | " + look);
    EXPECT_NE(off_fds.find("pipe:"), std::string::npos) << off_fds;
    EXPECT_EQ(off_fds.find("/dev/cpu_dma_latency"), std::string::npos) << off_fds;
  } else {
    EXPECT_NE(piped.find("idle CPUs: not polling (/dev/cpu_dma_latency: "), std::string::npos) << piped;
  }
  std::string const off = ok("$F --bytes 1M --idle-poll off --stats 2>off.err | cat >/dev/null; cat off.err");
  EXPECT_NE(off.find("idle CPUs: not asked to poll (--idle-poll off)"), std::string::npos) << off;
  std::string const file = ok("$F --bytes 1M --stats 2>&1 >out");
  EXPECT_NE(file.find("idle CPUs: not asked to poll (no reader to wake: not a pipe or a socket)"), std::string::npos)
      << file;
  std::string const paced = ok("$F --bytes 1M --rate 100M --stats 2>paced.err | cat >/dev/null; cat paced.err");
  EXPECT_NE(paced.find("idle CPUs: not asked to poll (a paced stream: --rate, --stall, --burst)"), std::string::npos)
      << paced;
  outcome const bad = sh("$F --bytes 1M --idle-poll on");
  EXPECT_EQ(bad.status, 2) << bad.err;
  EXPECT_EQ(bad.out, "");
  EXPECT_NE(bad.err.find("--idle-poll"), std::string::npos) << bad.err;
}

TEST_F(E2E, GenerateOnlyWritesNothing) {
  EXPECT_EQ(ok("$F --count 1000000 --generate-only"), "");
  EXPECT_EQ(ok("$F yes --bytes 10M --generate-only"), "");
}

// ---- output that cannot be written --------------------------------------------------------------

TEST_F(E2E, OutputErrorsAreOneLineAndStatusOne) {
  struct expect {
    std::string redirect, mentions;
  };
  for (auto const& e :
       {expect{">&-", "closed"}, expect{"1</dev/null", "writing"}, expect{">/dev/full", std::strerror(ENOSPC)}}) {
    for (char const* gen : {"--count 100000", "yes"}) {
      outcome const o = sh("$F " + std::string(gen) + " " + e.redirect);
      EXPECT_EQ(o.status, 1) << gen << " " << e.redirect << ": " << o.err;
      EXPECT_EQ(count_lines(o.err), 1u) << gen << " " << e.redirect << ": " << o.err;
      EXPECT_NE(o.err.find(e.mentions), std::string::npos) << gen << " " << e.redirect << ": " << o.err;
    }
  }
}

TEST_F(E2E, WriteErrorsNameTheFileAsCoreutilsDoes) {
  std::string const full = std::string("fizzgen: standard output: ") + std::strerror(ENOSPC) + "\n";
  for (std::string const cmd :
       {"$F --count 100000", "$F yes", "$F morse --count 1000", "echo hi | $F morse encode", "$F --help",
        "$F --version", "$F yes --version", "$F --list-archs", "$F sink --help", ": | $F sink --json --quiet"}) {
    outcome const o = sh(cmd + " >/dev/full");
    EXPECT_EQ(o.status, 1) << cmd;
    EXPECT_EQ(o.err, full) << cmd;
  }
  EXPECT_EQ(sh("$F morse encode /nonexistent").err, "fizzgen: /nonexistent: No such file or directory\n");
  EXPECT_EQ(sh("$F morse decode /").err, "fizzgen: /: Is a directory\n");
  std::string const dir = sh("$F sink </").err;
  EXPECT_EQ(dir.substr(dir.rfind('\n', dir.size() - 2) + 1), "fizzgen sink: standard input: Is a directory\n") << dir;
  EXPECT_EQ(sh("$F --count 1 --stats-json /nonexistent/s.json >/dev/null").err,
            "fizzgen: /nonexistent/s.json: No such file or directory\n");
  // The report's file is opened before the run: a usage error, nothing streamed, for every reporter.
  for (char const* cmd : {"$F --count 1 --stats-json /nonexistent/s.json", "$F yes --json /nonexistent/s.json",
                          ": | $F sink --json /nonexistent/s.json", "$F bench --json /nonexistent/s.json"}) {
    outcome const o = sh(cmd);
    EXPECT_EQ(o.status, 2) << cmd;
    EXPECT_EQ(o.out, "") << cmd;
    EXPECT_EQ(o.err, "fizzgen: /nonexistent/s.json: No such file or directory\n") << cmd;
  }
  // A reader that leaves early ends the help quietly, by SIGPIPE, as with GNU tools.
  outcome const cut =
      sh("(wait_for 20 test -s reader.pid && wait_for 20 gone $(cat reader.pid); exec $F --help) | "
         "bash -c 'echo $$ >reader.pid'; exit ${PIPESTATUS[0]}");
  EXPECT_EQ(cut.status, 128 + SIGPIPE);
  EXPECT_EQ(cut.err, "");
}

// ---- bad input ----------------------------------------------------------------------------------

TEST_F(E2E, BadInputIsOneLineAndStatusTwo) {
  std::vector<std::string> const cases{
      "--from 0",
      "--from -5",
      "--from 12abc",
      "--from ''",
      "--rule 0:X",
      "--rule 3:",
      "--rule :X",
      "--rule 3",
      "--rule x:Fizz",
      "--rule \"$(printf '3:a\\nb')\"",
      "--threads 0",
      "--threads -1",
      "--threads x",
      "--from 10 --to 9",
      "--to 0",
      "--bogus",
      "-z",
      "--count 5 --to 9",
      "--count 12Q",
      "--count -1",
      "--bytes 1X",
      "--bytes 99999999999999999999999",
      "--bytes 2Z",
      "--count 1Ki",
      "--count +5",
      "--pipe-size 1KiBB",
      "sink --block-size 5x",
      "bench --bytes 1q",
      "morse encode --chunk-size 1Q",
      "yes --threads 0",
      "yes --bytes x",
      "check --from 0",
      "check --rule 0:X",
      "check --bogus",
      "nonsense-subcommand",
      "--arch bogus",
      "--reuse sometimes",
      "--generate-only --pipe-only",
  };
  for (auto const& args : cases) {
    outcome const o = sh("$F " + args + " </dev/null");
    EXPECT_EQ(o.status, 2) << args << "\nstderr: " << o.err;
    EXPECT_EQ(o.out, "") << args;
    EXPECT_EQ(count_lines(o.err), 1u) << args << "\nstderr: " << o.err;
    EXPECT_TRUE(!o.err.empty() && o.err.back() == '\n') << args;
    EXPECT_GT(o.err.size(), 10u) << args;
  }
}

TEST_F(E2E, SizesReadAsGnuHeadReadsThem) {
  EXPECT_EQ(ok("$F --bytes 1kB | wc -c"), "1000\n");
  EXPECT_EQ(ok("$F --bytes 1KiB | wc -c"), "1024\n");
  EXPECT_EQ(ok("$F --bytes 3b | wc -c"), "1536\n");
  EXPECT_EQ(ok("$F yes --count 1k | wc -l"), "1024\n");
  EXPECT_EQ(ok("$F morse --count 2KB | wc -l"), "2000\n");
  EXPECT_EQ(json_number(ok("$F yes --bytes 1MB | $F sink --read --block-size 4kiB --quiet --json"), "bytes"), 1000000);
  outcome const piped = sh("$F --count 10 --pipe-size 128k --stats 2>err | cat >/dev/null; cat err");
  EXPECT_NE(piped.out.find("pipe 128 KiB"), std::string::npos) << piped.out;
  for (std::string const args : {"--count 5x", "--bytes 16E", "sink --block-size 1kb", "bench --bytes 1B"}) {
    outcome const o = sh("$F " + args + " </dev/null");
    std::string const value = args.substr(args.rfind(' ') + 1);
    std::string const option = args.substr(args.find("--"), args.rfind(' ') - args.find("--"));
    EXPECT_EQ(o.err.rfind("fizzgen: " + option + ": '" + value + "' ", 0), 0u) << args << ": " << o.err;
    EXPECT_EQ(o.status, 2) << args;
  }
}

TEST_F(E2E, ParserErrorsArePlainSentences) {
  struct expect {
    std::string args, what, command;  ///< the error is "fizzgen: WHAT. Try 'COMMAND --help' ..."
  };
  std::string const size_error = "'2x' has an unknown suffix (use b, K, KB, KiB, M, MB, MiB... up to E, EB, EiB)";
  for (auto const& e : {
           expect{"--bogus", "unrecognized option '--bogus'", "fizzgen"},
           expect{"--bogus=3", "unrecognized option '--bogus'", "fizzgen"},
           expect{"-z", "invalid option -- 'z'", "fizzgen"},
           expect{"nonsense", "extra operand 'nonsense'", "fizzgen"},
           expect{"--count", "option '--count' requires an argument", "fizzgen"},
           expect{"--count 1 --count 2", "--count may be given only once", "fizzgen"},
           expect{"--count 5 --to 9", "--to and --count cannot be used together", "fizzgen"},
           expect{"yes --bogus", "unrecognized option '--bogus'", "fizzgen yes"},
           expect{"yes -n 2x", "--count: " + size_error, "fizzgen yes"},
           expect{"check --bogus", "unrecognized option '--bogus'", "fizzgen check"},
           expect{"morse encode a b", "extra operand 'b'", "fizzgen morse encode"},
           expect{"sink --read --splice", "--splice and --read cannot be used together", "fizzgen sink"},
           expect{"bench --only nope",
                  "--only: 'nope' is not a sweep (use threads, pipe_size, chunk_bytes or progress)", "fizzgen bench"},
           expect{"--progress=sometimes", "--progress: 'sometimes' is not a choice (use auto, force, numeric or never)",
                  "fizzgen"},
       }) {
    outcome const o = sh("$F " + e.args + " </dev/null");
    EXPECT_EQ(o.err, "fizzgen: " + e.what + ". Try '" + e.command + " --help' for more information.\n") << e.args;
    EXPECT_EQ(o.status, 2) << e.args;
    EXPECT_EQ(o.out, "") << e.args;
  }
}

TEST_F(E2E, HelpFitsEightyColumnsEverywhere) {
  for (std::string const sub :
       {"", "yes", "check", "morse", "morse encode", "morse decode", "sink", "bench", "random"}) {
    std::string const help = ok("$F " + sub + " --help");
    std::size_t start = 0, lines = 0;
    for (std::size_t end; (end = help.find('\n', start)) != std::string::npos; start = end + 1, ++lines)
      EXPECT_LE(end - start, 80u) << "fizzgen " << sub << " --help: " << help.substr(start, end - start);
    EXPECT_GT(lines, 5u) << sub;
    EXPECT_NE(help.find("--version"), std::string::npos) << sub;
    if (sub != "check") {
      EXPECT_NE(help.find("Sizes (N) as GNU head reads them"), std::string::npos) << sub;
    }
  }
  std::string const help = ok("$F --help");
  EXPECT_NE(help.find("force (always) or never"), std::string::npos);
  for (char const* shorts : {"-n,--count N", "-c,--bytes N", "-j,--threads N"})
    EXPECT_NE(help.find(shorts), std::string::npos) << shorts;
  EXPECT_NE(ok("$F sink --help").find("-q,--quiet"), std::string::npos);
}

/// The long options a --help page lists: the first column of the lines CLI11 writes for options.
std::set<std::string> help_options(std::string const& help) {
  std::set<std::string> names;
  std::istringstream in(help);
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("  -", 0) != 0) continue;
    std::istringstream column(line.substr(2, line.find(' ', 2) - 2));
    for (std::string name; std::getline(column, name, ',');)
      if (name.rfind("--", 0) == 0) names.insert(name);
  }
  return names;
}

/// The long options in roff text: every \-\-name, its words [a-z0-9]+ joined by \- (a scan, not
/// std::regex, whose GCC 12 headers warn maybe-uninitialized under the sanitizers).
std::set<std::string> roff_options(std::string const& roff) {
  std::set<std::string> names;
  auto const word_end = [&](std::size_t at) {
    while (at < roff.size() && ((roff[at] >= 'a' && roff[at] <= 'z') || (roff[at] >= '0' && roff[at] <= '9'))) ++at;
    return at;
  };
  std::string const dash = R"(\-)";
  for (std::size_t at = roff.find(dash + dash); at != std::string::npos; at = roff.find(dash + dash, at)) {
    std::size_t end = word_end(at + 4);
    if (end == at + 4) {  // no name here: perhaps one from the next \-
      at += 2;
      continue;
    }
    std::string name = "--";
    name.append(roff, at + 4, end - at - 4);
    while (roff.compare(end, 2, dash) == 0 && word_end(end + 2) > end + 2) {
      std::size_t const next = word_end(end + 2);
      name += '-';
      name.append(roff, end + 2, next - end - 2);
      end = next;
    }
    names.insert(name);
    at = end;
  }
  return names;
}

std::string joined(std::set<std::string> const& names) {
  std::string out;
  for (auto const& n : names) out += " " + n;
  return out;
}

// --progress=numeric: one whole number a line for scripts, as pv -n: the percent when the end is
// known, else the bytes; sink --progress shows what arrived (it counts no lines).
TEST_F(E2E, NumericProgressAndSinkProgress) {
  auto const numbers = [](std::string const& err) {
    std::vector<std::string> lines;
    std::istringstream in(err);
    for (std::string line; std::getline(in, line);) {
      EXPECT_TRUE(!line.empty() && line.find_first_not_of("0123456789") == std::string::npos) << line;
      lines.push_back(line);
    }
    return lines;
  };
  std::vector<std::string> const percent = numbers(sh("$F -n 1000 --progress=numeric >/dev/null").err);
  ASSERT_FALSE(percent.empty());
  EXPECT_EQ(percent.back(), "100");
  std::vector<std::string> const unbounded =
      numbers(sh("$F yes --rate 4M --duration 600ms --progress=numeric >out").err);
  ASSERT_FALSE(unbounded.empty());
  EXPECT_EQ(unbounded.back(), std::to_string(std::filesystem::file_size(path("out"))));  // no end known: bytes
  std::vector<std::string> const bytes =
      numbers(sh("$F yes -c 3M --rate 4M --progress=numeric 2>err | $F sink -q --progress=numeric 2>sink_err; "
                 "cat sink_err")
                  .out);
  ASSERT_GE(bytes.size(), 2u);  // 0.75 s at four redraws a second
  EXPECT_EQ(bytes.back(), "3145728");
  EXPECT_LE(std::stoull(bytes.front()), std::stoull(bytes.back()));
  std::vector<std::string> const stream_bytes = numbers(ok("cat err"));
  ASSERT_FALSE(stream_bytes.empty());
  EXPECT_EQ(stream_bytes.back(), "100");  // -c says where the stream ends: the percent
  outcome const line = sh("$F yes -c 1M | $F sink --progress=force");
  EXPECT_EQ(line.status, 0);
  EXPECT_NE(line.err.find("fizzgen: 1.00 MiB 0:00:00 ["), std::string::npos) << line.err;
  EXPECT_EQ(line.err.find("lines"), std::string::npos) << line.err;
  EXPECT_NE(line.err.find("fizzgen sink: 1.00 MiB"), std::string::npos) << line.err;
  for (char const* bad : {"$F sink --progress=often </dev/null", "$F -n 1 --progress=numbers"}) {
    outcome const o = sh(bad);
    EXPECT_EQ(o.status, 2) << bad;
    EXPECT_TRUE(o.out.empty()) << bad;
    EXPECT_NE(o.err.find("use auto, force, numeric or never"), std::string::npos) << o.err;
  }
}

// The man page and the bash completion know every option of every subcommand's --help, and
// nothing else; the STREAM OPTIONS of the man page are those every stream takes (yes too).
TEST_F(E2E, ManPageAndCompletionListWhatHelpLists) {
  std::string const man = read_file(std::string(FIZZGEN_SOURCE_DIR) + "/docs/fizzgen.1");
  std::string const completion = std::string(FIZZGEN_SOURCE_DIR) + "/docs/fizzgen.bash-completion";
  std::set<std::string> const in_man = roff_options(man);
  std::set<std::string> every;
  for (std::string const sub :
       {"", "yes", "random", "check", "morse", "morse encode", "morse decode", "sink", "bench", "tune"}) {
    std::set<std::string> const help = help_options(ok("$F " + sub + " --help"));
    ASSERT_GT(help.size(), 2u) << sub;
    every.insert(help.begin(), help.end());
    std::set<std::string> missing;
    std::set_difference(help.begin(), help.end(), in_man.begin(), in_man.end(), std::inserter(missing, missing.end()));
    EXPECT_TRUE(missing.empty()) << "fizzgen " << sub << ": not in the man page:" << joined(missing);
    // What the completion offers after "fizzgen SUB --", values cut off (--progress=force).
    std::string const words = "fizzgen " + sub + (sub.empty() ? "--" : " --");
    std::set<std::string> offered;
    std::istringstream replies(ok("source '" + completion + "'; COMP_WORDS=(" + words +
                                  "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _fizzgen; "
                                  "printf '%s\\n' \"${COMPREPLY[@]}\""));
    for (std::string reply; std::getline(replies, reply);) offered.insert(reply.substr(0, reply.find('=')));
    EXPECT_EQ(joined(offered), joined(help)) << "completion of: " << words;
  }
  std::set<std::string> unknown;
  std::set_difference(in_man.begin(), in_man.end(), every.begin(), every.end(), std::inserter(unknown, unknown.end()));
  EXPECT_TRUE(unknown.empty()) << "in the man page, in no --help:" << joined(unknown);

  // The options a section describes: the heading line after each .TP.
  auto const section = [&man](std::string const& name) {
    std::size_t const start = man.find(".SH " + name + "\n");
    EXPECT_NE(start, std::string::npos) << name;
    std::istringstream in(man.substr(start, man.find("\n.SH ", start + 1) - start));
    std::string headings;
    for (std::string line; std::getline(in, line);)
      if (line == ".TP" && std::getline(in, line)) headings += line + "\n";
    return headings;
  };
  std::set<std::string> const stream = roff_options(section("STREAM OPTIONS"));
  EXPECT_GT(stream.size(), 15u);
  for (std::string const sub : {"", "yes", "random", "morse"}) {
    std::set<std::string> const help = help_options(ok("$F " + sub + " --help"));
    for (auto const& name : stream) EXPECT_EQ(help.count(name), 1u) << "fizzgen " << sub << " has no " << name;
  }
  std::set<std::string> const yes_help = help_options(ok("$F yes --help"));
  for (char const* fizzbuzz_only : {"--from", "--to", "--rule", "--arch"}) {
    EXPECT_EQ(stream.count(fizzbuzz_only), 0u) << fizzbuzz_only;
    EXPECT_EQ(yes_help.count(fizzbuzz_only), 0u) << fizzbuzz_only;
    EXPECT_EQ(roff_options(section("FIZZBUZZ OPTIONS")).count(fizzbuzz_only), 1u) << fizzbuzz_only;
  }
}

// --progress=<TAB> offers the values alone: readline replaces only what follows the '='.
TEST_F(E2E, CompletionOfProgressOffersOnlyTheValue) {
  std::string const completion = std::string(FIZZGEN_SOURCE_DIR) + "/docs/fizzgen.bash-completion";
  auto const complete = [&](std::string const& words) {
    return ok("source '" + completion + "'; COMP_WORDS=(" + words +
              "); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _fizzgen; echo \"${COMPREPLY[*]}\"");
  };
  EXPECT_EQ(complete("fizzgen --progress=f"), "force\n");
  EXPECT_EQ(complete("fizzgen --progress="), "auto force numeric never\n");
  EXPECT_EQ(complete("fizzgen sink --progress=n"), "numeric never\n");
  // Split at the '=' as bash does without bash-completion's helper.
  EXPECT_EQ(complete("fizzgen yes --progress = nu"), "numeric\n");
  EXPECT_EQ(complete("fizzgen --progress ="), "auto force numeric never\n");
}

TEST_F(E2E, VersionSaysTheLicenceOnEverySubcommand) {
  for (std::string const sub : {"", "yes", "check", "morse", "morse encode", "sink", "bench"}) {
    std::string const v = ok("$F " + sub + " --version");
    EXPECT_EQ(v.rfind("fizzgen ", 0), 0u) << sub << ": " << v;
    EXPECT_NE(v.find("License MIT"), std::string::npos) << sub << ": " << v;
  }
}

TEST_F(E2E, ShortOptionsAsHeadAndMakeHaveThem) {
  EXPECT_EQ(ok("$F -n 15"), ok("$F --count 15"));
  EXPECT_EQ(ok("$F yes -c 5"), "y\ny\ny");
  EXPECT_EQ(ok("$F -j 2 -n 1000"), classic_from_one(1000));
  EXPECT_EQ(ok("$F morse encode -j 2 <<<SOS"), "... --- ...\n");
  EXPECT_EQ(sh("$F yes -c 1M | $F sink -q").err, "");
}

TEST_F(E2E, OneLineIsSingular) {
  outcome const progress = sh("$F -n 1 --progress=force >/dev/null");
  EXPECT_NE(progress.err.find("] 1 line 100%\n"), std::string::npos) << progress.err;  // --count: the total is known
  outcome const stats = sh("$F -n 1 -j 1 --stats >/dev/null");
  EXPECT_NE(stats.err.find(" in 1 chunk;"), std::string::npos) << stats.err;
  EXPECT_NE(sh("$F -n 2 --progress=force >/dev/null").err.find("] 2 lines 100%\n"), std::string::npos);
  // check's verdict too.
  EXPECT_EQ(sh("$F -n 1 | $F check").out, "fizzgen check: OK: 1 line, 2 bytes\n");
}

TEST_F(E2E, PipeSizeAboveTheSystemMaximumTakesTheMaximum) {
  std::string const max = read_file("/proc/sys/fs/pipe-max-size");
  if (max.empty()) GTEST_SKIP() << "no /proc/sys/fs/pipe-max-size";
  std::uint64_t const max_kib = std::stoull(max) / 1024;
  outcome const o =
      sh("$F -n 1 --pipe-size " + std::to_string(2 * max_kib) + "K --stats 2>err | cat >/dev/null; cat err");
  // Root may pass the maximum (CAP_SYS_RESOURCE); anyone else gets exactly it, and is told.
  if (o.out.find("pipe " + std::to_string(2 * max_kib) + " KiB,") != std::string::npos) GTEST_SKIP() << "privileged";
  EXPECT_NE(o.out.find("pipe " + std::to_string(max_kib) + " KiB (asked for " + std::to_string(2 * max_kib) + " KiB"),
            std::string::npos)
      << o.out;
}

TEST_F(E2E, EnvironmentArchIsRefusedLikeTheOption) {
  for (std::string const sub : {"", "morse "}) {
    outcome const env = sh("FIZZGEN_ARCH=bogus $F " + sub + "-n 3");
    EXPECT_EQ(env.status, 2) << sub;
    EXPECT_EQ(env.out, "") << sub;
    EXPECT_EQ(env.err.rfind("fizzgen: FIZZGEN_ARCH: 'bogus' is not an arch (see --list-archs).", 0), 0u) << env.err;
    EXPECT_EQ(count_lines(env.err), 1u) << env.err;
    outcome const opt = sh("$F " + sub + "--arch bogus -n 3");
    EXPECT_EQ(opt.status, 2) << sub;
    EXPECT_EQ(opt.err.rfind("fizzgen: --arch: 'bogus' is not an arch (see --list-archs).", 0), 0u) << opt.err;
  }
  EXPECT_EQ(ok("FIZZGEN_ARCH=scalar $F -n 3"), "1\n2\nFizz\n");
  EXPECT_EQ(ok("FIZZGEN_ARCH=bogus $F --arch scalar -n 3"), "1\n2\nFizz\n");  // the option wins
}

TEST_F(E2E, BadInputNamesTheProblem) {
  struct expect {
    std::string args, mentions;
  };
  for (auto const& e :
       {expect{"--from 12abc", "12abc"}, expect{"--rule 0:X", "0:X"}, expect{"--threads 0", "--threads"},
        expect{"--from 10 --to 9", "--to"}, expect{"--bogus", "--bogus"}, expect{"--from 0", "--from"},
        expect{"--rule 3:", "--rule"}, expect{"--stall 1M", "--stall"}, expect{"--stall 1M:0", "--stall"},
        expect{"--stall 1M:soon", "--stall"}, expect{"--burst 1s", "--burst"}, expect{"--burst 0/1s", "--burst"},
        expect{"--seed 3 --count 1", "--seed"}}) {
    outcome const o = sh("$F " + e.args);
    EXPECT_NE(o.err.find(e.mentions), std::string::npos) << e.args << ": " << o.err;
  }
}

// ---- the reader goes away -----------------------------------------------------------------------

TEST_F(E2E, HeadEndsThePipelineQuickly) {
  for (std::string const gen : {"$F", "$F --threads 2", "$F --threads 8", "$F yes", "$F --from 99999999999999999998"}) {
    // The group's status goes to a file: /bin/sh has no pipefail.
    outcome const o = sh("{ " + gen + " 2>gen_err; echo $? >gen_status; } | head -1", 10s);
    EXPECT_EQ(o.status, 0) << gen;
    std::string const first = gen == "$F yes"                           ? "y\n"
                              : gen.find("--from") != std::string::npos ? "99999999999999999998\n"
                                                                        : "1\n";
    EXPECT_EQ(o.out, first) << gen;
    EXPECT_LT(o.seconds, 3.0) << gen;
    std::string const status = read_file(path("gen_status"));
    // Killed by SIGPIPE (128 + 13) as GNU tools are, or a quiet exit 0.
    EXPECT_TRUE(status == "141\n" || status == "0\n") << gen << ": exit status " << status;
    EXPECT_EQ(read_file(path("gen_err")), "") << gen;
  }
}

TEST_F(E2E, ReaderGoneMidStream) {
  outcome const o = sh("{ $F --threads 4 2>gen_err; echo $? >gen_status; } | head -c 50000000 | wc -c", 20s);
  EXPECT_EQ(o.out, "50000000\n");
  std::string const status = read_file(path("gen_status"));
  EXPECT_TRUE(status == "141\n" || status == "0\n") << status;
  EXPECT_EQ(read_file(path("gen_err")), "");
}

// ---- packaging ----------------------------------------------------------------------------------

/// A gzip file as Debian wants it (gzip -9n): no file name and no time stamp in its header.
bool reproducible_gzip(std::string const& bytes) {
  return bytes.size() > 10 && static_cast<unsigned char>(bytes[0]) == 0x1f &&
         static_cast<unsigned char>(bytes[1]) == 0x8b && (bytes[3] & 0x08) == 0 &&  // FNAME not set
         bytes.substr(4, 4) == std::string(4, '\0');                                // MTIME 0
}

TEST_F(E2E, InstallHasWhatTheDebianPackageNeeds) {
  outcome const o = sh(std::string("cmake --install '") + FIZZGEN_BUILD_DIR + "' --prefix inst >/dev/null");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(fs::exists(path("inst/bin/fizzgen")));
  std::string const man = file("inst/share/man/man1/fizzgen.1.gz");
  EXPECT_TRUE(reproducible_gzip(man));
  EXPECT_EQ(ok("gzip -dc inst/share/man/man1/fizzgen.1.gz"),
            read_file(std::string(FIZZGEN_SOURCE_DIR) + "/docs/fizzgen.1"));
  EXPECT_TRUE(reproducible_gzip(file("inst/share/doc/fizzgen/changelog.gz")));
  EXPECT_EQ(ok("gzip -dc inst/share/doc/fizzgen/changelog.gz | head -1"), "fizzgen (0.1.0) unstable; urgency=medium\n");
  std::string const copyright = file("inst/share/doc/fizzgen/copyright");
  EXPECT_NE(copyright.find("License: Expat"), std::string::npos);
  EXPECT_NE(copyright.find("the fizzgen authors"), std::string::npos);
  EXPECT_NE(read_file(std::string(FIZZGEN_SOURCE_DIR) + "/LICENSE").find("Copyright (c) the fizzgen authors"),
            std::string::npos);
  auto const plot = fs::status(path("inst/share/fizzgen/plot.sh")).permissions();
  EXPECT_NE(plot & fs::perms::owner_exec, fs::perms::none);
  EXPECT_TRUE(fs::exists(path("inst/share/bash-completion/completions/fizzgen")));
}

}  // namespace

// ---- fizzgen tune and the stored plan ------------------------------------------------------------

namespace {

class Tune : public fizzgen_test::pipeline_test {};

TEST_F(Tune, StoresAPlanThatLaterStreamsUseAndVerify) {
  // Tiny runs: what is checked is the plumbing, not which candidate wins.
  std::string const out = ok("FIZZGEN_PLAN=$PWD/cache/plan $F tune --bytes 8M --reps 1", 120s);
  EXPECT_NE(out.find("model"), std::string::npos) << out;
  EXPECT_NE(out.find("best:"), std::string::npos) << out;
  EXPECT_NE(out.find("stored in"), std::string::npos) << out;
  std::string const plan = ok("cat cache/plan");
  EXPECT_EQ(plan.rfind("fizzgen plan 1\n", 0), 0u) << plan;
  std::string const chunk = ok("sed -n 's/^chunk_bytes //p' cache/plan");
  ASSERT_FALSE(chunk.empty()) << plan;

  // A stream into a pipe runs with the plan, says so, and is still right.
  outcome const used =
      sh("FIZZGEN_PLAN=$PWD/cache/plan $F --count 3000000 --stats 2>stats | pv -q | $F check && cat stats");
  ASSERT_EQ(used.status, 0) << used.err;
  EXPECT_NE(used.out.find("sizing: stored plan"), std::string::npos) << used.out;
  EXPECT_NE(used.out.find(std::to_string(std::stoull(chunk) / 1024) + " KiB chunks"), std::string::npos) << used.out;

  // The same file under another machine's name is ignored, with the reason.
  outcome const stale =
      sh("sed 's/^kernel .*/kernel 0.0-elsewhere/' cache/plan >stale && "
         "FIZZGEN_PLAN=$PWD/stale $F --count 1000 --stats 2>&1 >/dev/null");
  EXPECT_NE(stale.out.find("ignored: made where the kernel differed"), std::string::npos) << stale.out;
}

TEST_F(Tune, DryRunStoresNothingAndBadValuesAreRefused) {
  std::string const out = ok("FIZZGEN_PLAN=$PWD/plan $F tune --bytes 4M --reps 1 --dry-run", 120s);
  EXPECT_NE(out.find("not stored"), std::string::npos) << out;
  EXPECT_EQ(sh("test -e plan").status, 1);
  for (char const* bad : {"--reps 0", "--bytes 1K", "--timeout 0"}) {
    outcome const o = sh(std::string("FIZZGEN_PLAN=$PWD/plan $F tune ") + bad);
    EXPECT_EQ(o.status, 2) << bad << ": " << o.err;
    EXPECT_EQ(o.out, "") << bad;
  }
}

}  // namespace
