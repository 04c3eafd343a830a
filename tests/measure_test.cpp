// Measuring: `fizzgen sink` (bytes, exit codes, --read vs --splice on pipes and files), `fizzgen
// bench --quick --json` (runs, and its JSON has the keys plot.sh and readers rely on), --progress
// (lines on stderr, the same bytes on stdout, a clean last line on a signal), and the engine's
// progress counter against what a sink received.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "bench/child.hpp"
#include "consumer/consume.hpp"
#include "engine/run.hpp"
#include "generators/fizzbuzz.hpp"
#include "output/sink.hpp"
#include "pipeline_harness.hpp"
#include "report/progress.hpp"
#include "report/units.hpp"

#ifndef FIZZGEN_PLOT_SCRIPT
#error "FIZZGEN_PLOT_SCRIPT must name bench/plot.sh"
#endif

namespace {

using namespace fizzgen_test;

std::size_t count(std::string const& s, char c) { return static_cast<std::size_t>(std::count(s.begin(), s.end(), c)); }

bool contains(std::string const& s, std::string const& what) { return s.find(what) != std::string::npos; }

/// Each test gets a fresh directory; commands run in it through bash with $F naming fizzgen.
class Measure : public pipeline_test {};

// ---- fizzgen sink -------------------------------------------------------------------------------

TEST_F(Measure, SinkCountsEveryByteOfAPipe) {
  for (char const* mode : {"", "--splice", "--read", "--read --block-size 1000"}) {
    outcome const o = sh("$F --bytes 5000001 --threads 2 | $F sink " + std::string(mode) + " --json");
    EXPECT_EQ(o.status, 0) << mode << ": " << o.err;
    EXPECT_EQ(json_number(o.out, "bytes"), 5000001) << mode << ": " << o.out;
    EXPECT_EQ(json_string(o.out, "method"), contains(mode, "read") ? "read" : "splice") << mode;
    EXPECT_EQ(count(o.out, '\n'), 1u) << o.out;
    // The report: one line on stderr, naming bytes, rate and method.
    EXPECT_EQ(count(o.err, '\n'), 1u) << mode << ": " << o.err;
    EXPECT_TRUE(contains(o.err, "fizzgen sink: 4.77 MiB (5000001 bytes) in ")) << o.err;
    EXPECT_TRUE(contains(o.err, " MiB/s (") || contains(o.err, " GiB/s (")) << o.err;
  }
}

TEST_F(Measure, SinkOnAFileReadsIt) {
  ASSERT_EQ(sh("$F --count 100000 > f").status, 0);
  auto const size = static_cast<double>(fs::file_size(path("f")));
  // --splice needs a pipe: a file is read instead, with a note.
  outcome const s = sh("$F sink --json < f");
  EXPECT_EQ(s.status, 0) << s.err;
  EXPECT_EQ(json_number(s.out, "bytes"), size);
  EXPECT_EQ(json_string(s.out, "method"), "read");
  EXPECT_TRUE(contains(s.err, "not a pipe")) << s.err;
  outcome const r = sh("$F sink --read --json --quiet < f");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json_number(r.out, "bytes"), size);
  EXPECT_EQ(r.err, "");
}

TEST_F(Measure, SinkOnEmptyInput) {
  for (char const* cmd : {": | $F sink --json --quiet", ": | $F sink --read --json --quiet",
                          "$F sink --read --json --quiet < /dev/null"}) {
    outcome const o = sh(cmd);
    EXPECT_EQ(o.status, 0) << cmd << ": " << o.err;
    EXPECT_EQ(json_number(o.out, "bytes", -1), 0) << cmd;
    EXPECT_EQ(json_number(o.out, "seconds", -1), 0) << cmd;
  }
}

TEST_F(Measure, SinkBadUsageIsOneLineAndStatusTwo) {
  for (char const* args :
       {"--read --splice", "--block-size 0", "--block-size 2G", "--block-size x", "--bogus", "extra"}) {
    outcome const o = sh(std::string("$F sink ") + args + " < /dev/null");
    EXPECT_EQ(o.status, 2) << args << ": " << o.err;
    EXPECT_EQ(count(o.err, '\n'), 1u) << args << ": " << o.err;
    EXPECT_EQ(o.out, "") << args;
  }
}

TEST_F(Measure, SinkUnreadableInputIsStatusOne) {
  outcome const closed = sh("$F sink <&-");
  EXPECT_EQ(closed.status, 1) << closed.err;
  EXPECT_TRUE(contains(closed.err, "closed")) << closed.err;
  outcome const dir = sh("$F sink --read < .");
  EXPECT_EQ(dir.status, 1) << dir.err;
  EXPECT_TRUE(contains(dir.err, "fizzgen sink: standard input: Is a directory\n")) << dir.err;
}

TEST_F(Measure, ConsumeCountsAPipeBothWays) {
  for (bool use_splice : {true, false}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    std::thread writer([fd = fds[1]] {
      std::string const block(100000, 'x');
      for (int i = 0; i < 30; ++i) ASSERT_EQ(::write(fd, block.data(), block.size()), 100000);
      ::close(fd);
    });
    fizzgen::consumer::report const r = fizzgen::consumer::consume(fds[0], use_splice, 65536, nullptr);
    writer.join();
    ::close(fds[0]);
    EXPECT_EQ(r.bytes, 3000000u);
    EXPECT_EQ(r.method, use_splice ? "splice" : "read");
    EXPECT_EQ(r.error, "");
    EXPECT_GE(r.seconds, 0);
  }
}

// ---- fizzgen bench ------------------------------------------------------------------------------

TEST_F(Measure, BenchQuickJson) {
  // --quick's plan, one small repetition each: the test checks the plumbing, not the speed.
  outcome const o = sh("$F bench --quick --reps 1 --bytes 8M --json b.json", 150s);
  ASSERT_EQ(o.status, 0) << o.out << o.err;
  for (char const* word :
       {"CPUs allowed", "kernel", "THP", "fs.pipe-max-size", "arch", "generate-only", "pipe-only -> sink --splice",
        "end-to-end -> sink --splice", "end-to-end -> sink --read", "+progress", "ratios"})
    EXPECT_TRUE(contains(o.out, word)) << word << " missing from\n" << o.out;
  std::string const j = read_file(path("b.json"));
  ASSERT_FALSE(j.empty());
  EXPECT_EQ(j.front(), '{');
  EXPECT_EQ(j.substr(j.size() - 2), "}\n");
  EXPECT_EQ(count(j, '{'), count(j, '}'));
  EXPECT_EQ(count(j, '['), count(j, ']'));
  for (char const* key : {"fizzgen_version",
                          "machine",
                          "cpu_model",
                          "cpus_allowed",
                          "kernel",
                          "thp",
                          "pipe_max_size",
                          "arch",
                          "settings",
                          "bytes_per_run",
                          "reps",
                          "defaults",
                          "results",
                          "ratios",
                          "series",
                          "measurement",
                          "consumer",
                          "threads",
                          "oversubscribed",
                          "chunk_bytes",
                          "pipe_size",
                          "progress",
                          "sweeps",
                          "median_gib_per_second",
                          "min_gib_per_second",
                          "max_gib_per_second",
                          "per_thread_gib_per_second",
                          "consumer_gib_per_second",
                          "runs_gib_per_second",
                          "fill_seconds",
                          "wait_seconds",
                          "emit_seconds",
                          "output_path",
                          "reuse",
                          "errors"})
    EXPECT_TRUE(contains(j, std::string("\"").append(key).append("\": "))) << key;  // GCC 12: no -Wrestrict
  // Every run succeeded and measured something.
  EXPECT_FALSE(contains(j, "\"ok_runs\": 0")) << j;
  auto const doc = parse_json(j);
  std::size_t results = 0;
  for (auto const& r : doc.value("results", nlohmann::ordered_json::array())) {
    ++results;
    EXPECT_GT(r.value("median_gib_per_second", 0.0), 0) << r.dump();
    EXPECT_TRUE(r.value("errors", nlohmann::ordered_json::array()).empty()) << r.dump();
  }
  EXPECT_GE(results, 12u);  // 4 measurements x (1..CPUs + oversubscribed) at least
  EXPECT_EQ(doc["settings"].value("bytes_per_run", 0), 8 << 20);
  // The one convention of every report: version, command line, start time, status.
  EXPECT_EQ(doc.value("status", ""), "ok");
  EXPECT_EQ(doc.value("command_line", nlohmann::ordered_json::array()).size(), 9u) << doc["command_line"].dump();
  EXPECT_TRUE(doc.contains("start_time"));
}

TEST_F(Measure, PlotScriptDrawsTheBenchJson) {
  if (sh("command -v gnuplot").status != 0) GTEST_SKIP() << "gnuplot is not installed (apt-get install gnuplot-nox)";
  ASSERT_EQ(sh("$F bench --only threads,pipe_size,chunk_bytes --reps 1 --bytes 4M --json b.json", 150s).status, 0);
  outcome const o = sh(std::string(FIZZGEN_PLOT_SCRIPT) + " b.json plots svg");
  EXPECT_EQ(o.status, 0) << o.err;
  for (char const* name : {"bench-threads.svg", "bench-pipe-size.svg", "bench-chunk-size.svg"}) {
    std::string const svg = read_file(path("plots") / name);
    EXPECT_TRUE(contains(svg, "<svg")) << name;
    EXPECT_TRUE(contains(svg, "end-to-end -&gt; sink --splice") || contains(svg, "end-to-end -> sink --splice"))
        << name;
  }
  EXPECT_EQ(sh(std::string(FIZZGEN_PLOT_SCRIPT) + " missing.json").status, 2);
}

TEST_F(Measure, PlotScriptReadsAnyLayoutOfTheJson) {
  // A stand-in gnuplot keeps what it is fed; the same results, on one line and pretty-printed.
  ASSERT_EQ(
      sh("mkdir bin && printf '#!/bin/sh\\ncat >>\"$PWD/gnuplot.in\"\\n' >bin/gnuplot && chmod +x bin/gnuplot").status,
      0);
  std::string const result =
      R"({"series": "end-to-end -> sink --splice", "threads": 2, "chunk_bytes": 1048576, "pipe_size": 65536, )"
      R"("progress": false, "sweeps": ["threads", "pipe_size"], "median_gib_per_second": 3.5, )"
      R"("min_gib_per_second": 3, "max_gib_per_second": 4})";
  std::string const compact = R"({"machine": {"cpu_model": "X", "cpus_allowed": 2}, "settings": {"reps": 1, )"
                              R"("bytes_per_run": 1048576}, "results": [)" +
                              result + "]}";
  std::string pretty;
  for (char c : compact)
    pretty += c == ',' ? std::string(",\n    ") : c == '{' ? std::string("{\n  ") : std::string(1, c);
  for (auto const& [name, text] : {std::pair{"compact", compact}, std::pair{"pretty", pretty}}) {
    std::ofstream(path(std::string(name) + ".json")) << text;
    fs::remove(path("gnuplot.in"));
    outcome const o = sh("PATH=$PWD/bin:$PATH " + std::string(FIZZGEN_PLOT_SCRIPT) + " " + name + ".json plots svg");
    EXPECT_EQ(o.status, 0) << name << ": " << o.err;
    EXPECT_TRUE(contains(o.out, "plots/bench-threads.svg")) << name << ": " << o.out;
    EXPECT_TRUE(contains(o.out, "plots/bench-pipe-size.svg")) << name << ": " << o.out;
    EXPECT_TRUE(contains(file("gnuplot.in"), "end-to-end -> sink --splice")) << name;
  }
  std::ofstream(path("other.json")) << R"({"bytes": 5})";
  EXPECT_EQ(sh("PATH=$PWD/bin:$PATH " + std::string(FIZZGEN_PLOT_SCRIPT) + " other.json plots").status, 2);
}

TEST_F(Measure, BenchUnwritableJsonFailsAtOnce) {
  outcome const o = sh("$F bench --quick --json /nonexistent/dir/b.json", 10s);
  EXPECT_EQ(o.status, 2) << o.err;
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(count(o.err, '\n'), 1u) << o.err;
  EXPECT_EQ(o.err, "fizzgen: /nonexistent/dir/b.json: No such file or directory\n");
}

TEST_F(Measure, BenchInterruptedLeavesNoTemporaryFolder) {
  // A private TMPDIR, where the runs' folder appears once bench measures; job control (set -m) so
  // that the background bench does not start with SIGINT ignored, as bash would leave it.
  for (char const* sig : {"INT", "TERM"}) {
    fs::remove_all(path("tmp"));
    fs::create_directory(path("tmp"));
    outcome const o =
        sh(std::string("set -m; TMPDIR=$PWD/tmp $F bench --only threads --reps 1000 --bytes 64M >out 2>err & "
                       "pid=$!; wait_for 20 eval 'ls tmp | grep -q fizzgen_bench_' && wait_for 20 has_children $pid "
                       "&& kill -") +
               sig + " $pid; wait $pid; echo $?",
           60s);
    EXPECT_EQ(o.out, std::string(sig) == "INT" ? "130\n" : "143\n") << sig << ": " << read_file(path("err"));
    // Only the runs' folder is ours: a child killed under ThreadSanitizer can leave the runtime's
    // own tsan.rodata.PID behind (made in $TMPDIR at start-up and unlinked a moment later).
    std::string left;
    for (auto const& e : fs::directory_iterator(path("tmp")))
      if (e.path().filename().string().starts_with("fizzgen_bench_")) left += " " + e.path().filename().string();
    EXPECT_EQ(left, "") << sig << ": the runs' folder is left behind; stderr: " << read_file(path("err"));
  }
}

TEST_F(Measure, BenchBadUsage) {
  for (char const* args : {"--reps 0", "--bytes 0", "--timeout 0", "--bytes lots", "--quick extra", "--only nope"}) {
    outcome const o = sh(std::string("$F bench ") + args);
    EXPECT_EQ(o.status, 2) << args << ": " << o.err;
    EXPECT_EQ(count(o.err, '\n'), 1u) << args << ": " << o.err;
  }
}

// ---- --progress ---------------------------------------------------------------------------------

TEST_F(Measure, ProgressForcedKeepsStdoutIdentical) {
  ASSERT_EQ(sh("$F --count 2000000 --threads 2 > plain").status, 0);
  // The reader sleeps first: the stream blocks on a full pipe, the display keeps redrawing.
  outcome const o = sh("$F --count 2000000 --threads 2 --progress=force | (sleep 1; cat > shown)");
  EXPECT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(read_file(path("shown")), read_file(path("plain")));
  // Redraws start with "\r"; only the last line ends with "\n", and it gives the average.
  EXPECT_GE(count(o.err, '\r'), 2u) << o.err;
  EXPECT_EQ(count(o.err, '\n'), 1u) << o.err;
  EXPECT_EQ(o.err.back(), '\n');
  std::string const last = o.err.substr(o.err.rfind('\r') + 1);
  EXPECT_TRUE(contains(last, "average")) << last;
  EXPECT_TRUE(contains(last, " 2000000 lines")) << last;
  EXPECT_TRUE(contains(last, "fizzgen: ")) << last;
}

TEST_F(Measure, ProgressCountsLinesOfACutStreamAndOfYes) {
  outcome const cut = sh("$F --bytes 1000 --progress=force > out");
  EXPECT_EQ(cut.status, 0) << cut.err;
  std::string const out = read_file(path("out"));
  EXPECT_TRUE(contains(cut.err, " " + std::to_string(count(out, '\n')) + " lines")) << cut.err;
  EXPECT_TRUE(contains(cut.err, "1000 B ")) << cut.err;
  outcome const yes = sh("$F yes --count 12345 --progress=always > /dev/null");
  EXPECT_EQ(yes.status, 0) << yes.err;
  EXPECT_TRUE(contains(yes.err, " 12345 lines")) << yes.err;
}

TEST_F(Measure, ProgressOnlyOnATerminalUnlessForced) {
  outcome const o = sh("$F --count 100000 --progress > out");
  EXPECT_EQ(o.status, 0);
  EXPECT_EQ(o.err, "");  // stderr is a file here
  outcome const never = sh("$F --count 100000 --progress=never > out");
  EXPECT_EQ(never.err, "");
  outcome const bad = sh("$F --count 10 --progress=sometimes");
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(count(bad.err, '\n'), 1u) << bad.err;
  EXPECT_EQ(bad.out, "");
  outcome const before = sh("$F --progress yes --count 3");
  EXPECT_EQ(before.status, 2) << before.err;
}

TEST_F(Measure, ProgressThenStatsOnTheirOwnLines) {
  outcome const o = sh("$F --count 100000 --progress=force --stats > /dev/null");
  EXPECT_EQ(o.status, 0) << o.err;
  std::size_t const stats = o.err.rfind("fizzgen: ", o.err.find(" s = "));
  ASSERT_NE(stats, std::string::npos) << o.err;
  EXPECT_EQ(o.err[stats - 1], '\n') << o.err;  // the progress line was finished first
  // The total is known (--count): the final line says how much of it arrived; --stats's units
  // fit the number (about 600 KiB, not "0.001 GiB").
  std::string const last = o.err.substr(0, stats - 1);
  EXPECT_TRUE(contains(last.substr(last.rfind('\r') + 1), "100000 lines 100%")) << o.err;
  EXPECT_TRUE(contains(o.err.substr(stats), " KiB in ")) << o.err;
}

TEST_F(Measure, ProgressLineFinishedOnASignal) {
  // SIGTERM (a non-interactive shell's background jobs ignore SIGINT) stops the run: the last
  // progress line ends with a newline, then the process ends by the signal.
  // Signalled once the display has drawn (stderr is the harness's .stderr file).
  outcome const o =
      sh("$F --progress=force > /dev/null & p=$!; wait_for 20 test -s .stderr && kill -TERM $p; wait $p; echo $?");
  EXPECT_EQ(o.out, "143\n") << o.err;
  ASSERT_FALSE(o.err.empty());
  EXPECT_EQ(o.err.back(), '\n') << o.err;
  EXPECT_TRUE(contains(o.err.substr(o.err.rfind('\r') + 1), "average")) << o.err;
}

TEST(ProgressFormat, NumericAndWithoutLines) {
  using fizzgen::cli::format_numeric_progress;
  using fizzgen::cli::format_progress;
  using view = fizzgen::cli::progress_view;
  EXPECT_EQ(format_numeric_progress(view{}), "0");
  EXPECT_EQ(format_numeric_progress(view{123456789, 5, 2, 100, false, {}}), "123456789");  // no end: bytes
  EXPECT_EQ(format_numeric_progress(view{1ull << 30, 5, 2, 100, false, {4ull << 30, {}}}), "25");
  EXPECT_EQ(format_numeric_progress(view{1ull << 30, 999, 2, 100, false, {{}, 1000}}), "99");
  EXPECT_EQ(format_numeric_progress(view{4ull << 30, 1000, 8, 100, true, {4ull << 30, 1000}}), "100");
  EXPECT_EQ(format_progress(view{10, 0, 1, 10, true, {}, false}), "fizzgen: 10 B 0:00:01 [10 B/s average]");
  EXPECT_TRUE(fizzgen::cli::progress_style_for("numeric").numeric);
  EXPECT_FALSE(fizzgen::cli::progress_style_for("force").numeric);
}

TEST(ProgressFormat, Line) {
  using fizzgen::cli::format_progress;
  using view = fizzgen::cli::progress_view;
  EXPECT_EQ(format_progress(view{}), "fizzgen: 0 B 0:00:00 [0 B/s] 0 lines");
  EXPECT_EQ(format_progress(view{1610612736, 123, 3725.5, 536870912, false, {}}),
            "fizzgen: 1.50 GiB 1:02:05 [512 MiB/s] 123 lines");
  EXPECT_EQ(format_progress(view{20ull << 30, 7, 8, 2.5 * (1 << 30), true, {}}),
            "fizzgen: 20.0 GiB 0:00:08 [2.50 GiB/s average] 7 lines");
  EXPECT_EQ(format_progress(view{10, 1, 1, 10, true, {}}), "fizzgen: 10 B 0:00:01 [10 B/s average] 1 line");
}

TEST(ProgressFormat, PercentAndEtaOfAKnownTotal) {
  using fizzgen::cli::format_progress;
  using view = fizzgen::cli::progress_view;
  // 1 GiB of 4 GiB after 2 s at 512 MiB/s: 25%, 3 GiB to go at 512 MiB/s.
  EXPECT_EQ(format_progress(view{1ull << 30, 100, 2, 512 << 20, false, {4ull << 30, {}}}),
            "fizzgen: 1.00 GiB 0:00:02 [512 MiB/s] 100 lines 25% ETA 0:00:06");
  // A line count: the share of lines, the bytes to come estimated from it.
  EXPECT_EQ(format_progress(view{1ull << 30, 250, 2, 512 << 20, false, {{}, 1000}}),
            "fizzgen: 1.00 GiB 0:00:02 [512 MiB/s] 250 lines 25% ETA 0:00:06");
  // Both: the nearer limit counts.
  EXPECT_EQ(format_progress(view{1ull << 30, 500, 2, 512 << 20, false, {4ull << 30, 1000}}),
            "fizzgen: 1.00 GiB 0:00:02 [512 MiB/s] 500 lines 50% ETA 0:00:02");
  // The final line: the percent reached, no ETA.
  EXPECT_EQ(format_progress(view{4ull << 30, 1000, 8, 512 << 20, true, {4ull << 30, {}}}),
            "fizzgen: 4.00 GiB 0:00:08 [512 MiB/s average] 1000 lines 100%");
  // No rate yet: no ETA.
  EXPECT_EQ(format_progress(view{0, 0, 0, 0, false, {100, {}}}), "fizzgen: 0 B 0:00:00 [0 B/s] 0 lines 0%");
}

TEST(ProgressFormat, FitsTheTerminalWidth) {
  using fizzgen::cli::format_progress;
  using view = fizzgen::cli::progress_view;
  view const v{1ull << 30, 123456789, 2, 512 << 20, false, {4ull << 30, {}}};
  std::string const full = format_progress(v);
  EXPECT_EQ(format_progress(v, 200), full);
  EXPECT_EQ(format_progress(v, full.size() + 1), full);  // the last column stays free
  // Fields go in a fixed order, least telling first: lines, the name, the ETA, the elapsed time.
  EXPECT_EQ(format_progress(v, 60), "fizzgen: 1.00 GiB 0:00:02 [512 MiB/s] 25% ETA 0:00:06");
  EXPECT_EQ(format_progress(v, 50), "1.00 GiB 0:00:02 [512 MiB/s] 25% ETA 0:00:06");
  EXPECT_EQ(format_progress(v, 40), "1.00 GiB 0:00:02 [512 MiB/s] 25%");
  EXPECT_EQ(format_progress(v, 30), "1.00 GiB [512 MiB/s] 25%");
  EXPECT_EQ(format_progress(v, 22), "1.00 GiB [512 MiB/s]");
  EXPECT_EQ(format_progress(v, 20), "1.00 GiB");
  for (std::size_t width = 1; width <= 80; ++width)
    EXPECT_LT(format_progress(v, width).size(), std::max<std::size_t>(width, 2)) << width;
}

TEST(Units, FitTheNumber) {
  using fizzgen::cli::human_bytes;
  using fizzgen::cli::human_rate;
  EXPECT_EQ(human_bytes(0), "0 B");
  EXPECT_EQ(human_bytes(1023), "1023 B");
  EXPECT_EQ(human_bytes(1024), "1.00 KiB");
  EXPECT_EQ(human_rate(10.7 * (1 << 20)), "10.7 MiB/s");  // was "0.01 GiB/s" in --stats and sink
  EXPECT_EQ(human_bytes(9.999 * (1 << 20)), "10.0 MiB");
  EXPECT_EQ(human_bytes(99.99 * (1 << 20)), "100 MiB");
  EXPECT_EQ(human_rate(13.44 * (1u << 30)), "13.4 GiB/s");
  EXPECT_EQ(human_bytes(3.0 * (1ull << 40)), "3.00 TiB");
}

TEST(ProgressFormat, WantProgress) {
  using fizzgen::cli::want_progress;
  int const file = ::open("/dev/null", O_WRONLY);
  ASSERT_GE(file, 0);
  EXPECT_FALSE(want_progress("", file));
  EXPECT_FALSE(want_progress("true", file));  // not a terminal
  EXPECT_FALSE(want_progress("auto", file));
  EXPECT_FALSE(want_progress("never", file));
  EXPECT_TRUE(want_progress("force", file));
  EXPECT_TRUE(want_progress("always", file));
  EXPECT_THROW(want_progress("maybe", file), std::invalid_argument);
  ::close(file);
}

/// Keeps what it is given, like a pipe whose reader copies.
class capture_sink final : public fizzgen::sink {
 public:
  fizzgen::emit_status emit(std::span<std::byte const> data) noexcept override {
    bytes.append(reinterpret_cast<char const*>(data.data()), data.size());
    return fizzgen::emit_status::ok;
  }
  bool shares_pages() const noexcept override { return false; }
  std::string_view path() const noexcept override { return "capture"; }
  std::string bytes;
};

TEST(ProgressCounter, EngineCountsWhatWasEmitted) {
  for (std::optional<std::uint64_t> limit : {std::optional<std::uint64_t>{}, std::optional<std::uint64_t>{777777}}) {
    fizzgen::fizzbuzz const gen(*fizzgen::decimal::parse("1"), fizzgen::classic_rules(), 300000, 64 * 1024);
    capture_sink out;
    fizzgen::progress_counter progress;
    fizzgen::run_options o;
    o.threads = 3;
    o.pin = false;
    o.byte_limit = limit;
    o.progress = &progress;
    fizzgen::run_report const r = fizzgen::run(gen, out, o);
    EXPECT_EQ(progress.bytes.load(), r.bytes);
    EXPECT_EQ(progress.bytes.load(), out.bytes.size());
    EXPECT_EQ(progress.lines.load(), count(out.bytes, '\n'));
    if (!limit) {
      EXPECT_EQ(progress.lines.load(), 300000u);
    }
  }
}

}  // namespace
