#include "cli/sink_cmd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>

#include "cli/args.hpp"
#include "cli/usage.hpp"
#include "consumer/consume.hpp"
#include "report/interval.hpp"
#include "report/progress.hpp"
#include "report/report.hpp"
#include "report/units.hpp"

namespace fizzgen::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

constexpr char const* kSinkFooter =
    R"(Timing runs from the first byte to the end of input, so a slow start of the producer does
not count. splice(2) needs a pipe on standard input: a file or a terminal is read with read(2)
instead (a note on stderr says so).

Examples:
  fizzgen --bytes 10G | fizzgen sink              splice into /dev/null, like pv -q >/dev/null
  fizzgen --bytes 10G | fizzgen sink --read       read(2) into a 128 KiB buffer, like cat >/dev/null
  fizzgen --bytes 1G | fizzgen sink --json        {..., "bytes": 1073741824, "seconds": ...} on stdout
  fizzgen sink --read <big.file)";

}  // namespace

void add_sink_command(CLI::App& app, sink_command& s) {
  s.app = app.add_subcommand("sink", "Consume standard input like pv -q >/dev/null, then report bytes, seconds, rate");
  auto* splice = s.app->add_flag("--splice", s.splice,
                                 "splice(2) the pipe into /dev/null: no copy, pages dropped, like pv (default)");
  s.app->add_flag("--read", s.read, "read(2) into a buffer: one copy per byte, like cat >/dev/null")->excludes(splice);
  s.app->add_option("--block-size", s.block_size, "--read's buffer size (default 128K, like cat)")
      ->type_name("N")
      ->check(size_check(1, std::uint64_t{1} << 30, "must be from 1 to 1G"));
  add_json_option(*s.app, s.json, "--json",
                  "Also write the report as JSON to FILE (with the version, command line and start time); "
                  "'-' or no FILE: standard output");
  s.app->add_flag("-q,--quiet", s.quiet, "No report on stderr (errors and notes still are)");
  s.app->add_flag("--progress", s.progress,
                  "Show a live line on stderr (bytes, elapsed, rate) as the streams do; --progress=WHEN: auto "
                  "(plain --progress: when stderr is a terminal), force (always) or never; numeric: the bytes so "
                  "far, one number a line, as pv -n");
  s.app
      ->add_option("--interval", s.interval,
                   "Every T (1s, 500ms), one JSON line on stderr (or --report FILE): bytes received over the "
                   "interval, their rate and the totals, as the streams write theirs; a summary line at the end")
      ->type_name("T")
      ->check(duration_check());
  s.app->add_option("--report", s.report, "Where --interval's lines go, instead of stderr")->type_name("FILE");
  s.app->footer(std::string(kSinkFooter) + "\n\n" + kSizeHelp);
}

int run_sink(sink_command const& s) {
  std::uint64_t const block = parse_size("--block-size", s.block_size);  // 1..1G: size_check
  // Round up to whole pages for the aligned allocation.
  std::size_t const block_size = static_cast<std::size_t>((block + 4095) / 4096 * 4096);
  bool const show_progress = want_progress(s.progress, STDERR_FILENO);  // a bad WHEN: usage error
  json_report json_out(s.json);  // opened now: a path that cannot be written fails before reading
  interval_target const to = open_interval(s.interval, s.report);
  progress_counter counter;
  std::optional<progress_display> display;
  if (show_progress)
    display.emplace(counter, STDERR_FILENO, std::stop_token{}, progress_total{},
                    progress_style{progress_style_for(s.progress).numeric, false});
  std::optional<interval_report> intervals;
  if (to.period) intervals.emplace(counter, to.out(), *to.period, false);
  consumer::report const r =
      consumer::consume(STDIN_FILENO, !s.read, block_size, stderr, display || intervals ? &counter.bytes : nullptr);
  if (display) display->finish();  // before the report, which would otherwise share its line
  bool const reported = !intervals || intervals->finish(r.error.empty() ? "ok" : "failed");
  double const rate = r.seconds > 0 ? static_cast<double>(r.bytes) / kGiB / r.seconds : 0;
  if (!s.quiet)
    std::fprintf(stderr, "fizzgen sink: %s (%s) in %.3f s = %s (%s)\n",
                 human_bytes(static_cast<double>(r.bytes)).c_str(), counted(r.bytes, "byte").c_str(), r.seconds,
                 human_rate(r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds : 0).c_str(), r.method.c_str());
  // Lines are not counted: spliced pages are never seen, and --read must cost what cat costs.
  std::string const unwritten = json_out.write({{"status", r.error.empty() ? "ok" : "failed"},
                                                {"bytes", r.bytes},
                                                {"lines", nullptr},
                                                {"seconds", r.seconds},
                                                {"gib_per_second", rate},
                                                {"method", r.method},
                                                {"ok", r.error.empty()},
                                                {"error", r.error}});
  if (!unwritten.empty()) {
    std::fprintf(stderr, "fizzgen sink: %s\n", unwritten.c_str());
    return 1;
  }
  if (!reported) {
    std::fprintf(stderr, "fizzgen sink: %s: %s\n", s.report.empty() ? "standard error" : s.report.c_str(),
                 std::strerror(errno));
    return 1;
  }
  if (!r.error.empty()) {
    std::fprintf(stderr, "fizzgen sink: %s\n", r.error.c_str());
    return 1;
  }
  return 0;
}

}  // namespace fizzgen::cli
