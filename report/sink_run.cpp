#include "report/sink_run.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <stop_token>

#include "consumer/consume.hpp"
#include "parse/values.hpp"
#include "report/interval.hpp"
#include "report/progress.hpp"
#include "report/report.hpp"
#include "report/units.hpp"

namespace fizzgen::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

}  // namespace

int run_sink(sink_request const& s) {
  std::uint64_t const block = parse::parse_size("--block-size", s.block_size);  // 1..1G: size_check
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
