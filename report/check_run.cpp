#include "report/check_run.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>

#include "report/interval.hpp"

namespace fizzgen::cli {

int run_check(std::string const& interval, std::string const& report, check_judge const& judge) {
  interval_target const to = open_interval(interval, report);
  progress_counter received;
  std::optional<interval_report> intervals;
  if (to.period) intervals.emplace(received, to.out(), *to.period, false);
  int status = 0;
  try {
    status = judge(to.period ? &received.bytes : nullptr);
  } catch (...) {  // a usage error: no report of a check that never ran
    if (intervals) intervals->cancel();
    throw;
  }
  if (intervals && !intervals->finish(status == 0 ? "ok" : "failed")) {
    std::fprintf(stderr, "fizzgen check: %s: %s\n", report.empty() ? "standard error" : report.c_str(),
                 std::strerror(errno));
    return 1;
  }
  return status;
}

}  // namespace fizzgen::cli
