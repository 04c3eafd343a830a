// The one JSON convention of every reporting subcommand (--json on the streams, `sink`, `bench`):
// the same spelling, '-' for standard output, the file opened before the run, and every report
// with version, command line, start time, lines and bytes, and how the run ended. Also: options of
// the stream given before a subcommand are refused, not ignored.

#include <gtest/gtest.h>

#include <string>

#include "pipeline_harness.hpp"

namespace {

using namespace fizzgen_test;
using json = nlohmann::ordered_json;

class Report : public pipeline_test {};

void expect_header(json const& doc, std::size_t words, std::string const& what) {
  EXPECT_TRUE(doc.value("fizzgen_version", "").size() > 0) << what << ": " << doc.dump();
  EXPECT_EQ(doc.value("command_line", json::array()).size(), words) << what << ": " << doc.dump();
  std::string const start = doc.value("start_time", "");
  EXPECT_EQ(start.size(), 20u) << what << ": " << start;  // 2026-12-01T16:00:00Z
  EXPECT_EQ(start.back(), 'Z') << what << ": " << start;
}

TEST_F(Report, StreamReportCarriesTheHeaderLinesAndStatus) {
  for (char const* flag : {"--json", "--stats-json"}) {
    ok(std::string("$F --count 1000 ") + flag + " s.json >/dev/null");
    json const doc = parse_json(file("s.json"));
    expect_header(doc, 5, flag);
    EXPECT_EQ(doc.value("status", ""), "ok") << flag;
    EXPECT_EQ(doc.value("lines", 0), 1000) << flag;
    EXPECT_EQ(doc.value("bytes", 0), 4673) << flag;  // 1 to 1000, FizzBuzz
    EXPECT_TRUE(doc["signal"].is_null()) << flag;
  }
  ok("$F yes --bytes 1000 --json y.json >/dev/null");
  EXPECT_EQ(parse_json(file("y.json")).value("lines", 0), 500);
}

TEST_F(Report, StreamStoppedBySigintSaysInterrupted) {
  // Signalled once it runs a second thread: the signal guard is set up before any other thread.
  outcome const o =
      sh("set -m; $F --json s.json >/dev/null & pid=$!; wait_for 20 threads_at_least $pid 2 && kill -INT $pid; "
         "wait $pid; echo $?");
  EXPECT_EQ(o.out, "130\n") << o.err;
  json const doc = parse_json(file("s.json"));
  EXPECT_EQ(doc.value("status", ""), "interrupted") << file("s.json");
  EXPECT_EQ(doc.value("signal", ""), "SIGINT");
  EXPECT_EQ(doc.value("ended", ""), "signal");
}

TEST_F(Report, DashIsStandardOutput) {
  // A stream's standard output carries the stream: '-' only when nothing is streamed.
  outcome const refused = sh("$F --count 10 --json -");
  EXPECT_EQ(refused.status, 2);
  EXPECT_EQ(refused.out, "");
  EXPECT_NE(refused.err.find("--json: standard output carries the stream"), std::string::npos) << refused.err;
  json const gen = parse_json(ok("$F --count 1000 --generate-only --json -"));
  EXPECT_EQ(gen.value("lines", 0), 1000) << gen.dump();
  EXPECT_EQ(gen.value("mode", ""), "generate-only");
  // sink: --json, --json - and --json FILE.
  for (char const* spelling : {"--json", "--json -", "--json=-"}) {
    json const doc = parse_json(ok(std::string("$F --bytes 5000 | $F sink --quiet ") + spelling));
    EXPECT_EQ(doc.value("bytes", 0), 5000) << spelling;
    EXPECT_EQ(doc.value("status", ""), "ok") << spelling;
    expect_header(doc, std::string(spelling) == "--json -" ? 5 : 4, spelling);
  }
  EXPECT_EQ(ok("$F --bytes 5000 | $F sink --quiet --json k.json"), "");
  EXPECT_EQ(parse_json(file("k.json")).value("bytes", 0), 5000);
}

TEST_F(Report, ArgumentsThatAreNotUtf8) {
  ok("$F yes $'\\xff' --count 2 --json y.json >/dev/null");
  json const doc = parse_json(file("y.json"));
  EXPECT_EQ(doc.value("lines", 0), 2) << file("y.json");
  EXPECT_EQ(doc.value("command_line", json::array()).at(2), "\xef\xbf\xbd");  // U+FFFD
}

TEST_F(Report, ReportFileCheckedBeforeTheRun) {
  // Nothing runs: the file is not even created on the way, and the stream never starts.
  outcome const o = sh("$F --count 1 --json /nonexistent/x; echo status=$?");
  EXPECT_EQ(o.out, "status=2\n");
  EXPECT_EQ(o.err, "fizzgen: /nonexistent/x: No such file or directory\n");
}

TEST_F(Report, SinkReportToAFullDiskFails) {
  outcome const o = sh(": | $F sink --quiet --json k.json; echo $?; : | $F sink --quiet --json /dev/full");
  EXPECT_EQ(o.out.substr(0, 2), "0\n");
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "fizzgen sink: /dev/full: No space left on device\n");
}

TEST_F(Report, StreamOptionsBeforeASubcommandAreRefused) {
  for (char const* cmd : {"$F --buffers 4 yes", "$F --count 3 yes", "$F --json x.json sink", "$F --threads 2 check",
                          "$F --rate 1M morse", "$F --arch scalar bench"}) {
    outcome const o = sh(std::string(cmd) + " </dev/null");
    EXPECT_EQ(o.status, 2) << cmd;
    EXPECT_EQ(o.out, "") << cmd;
    EXPECT_NE(o.err.find("belongs after the subcommand"), std::string::npos) << cmd << ": " << o.err;
  }
  EXPECT_EQ(ok("$F yes --buffers 4 --count 2"), "y\ny\n");
}

}  // namespace
