#pragma once
// --interval T: one JSON object per interval, a line each (bytes, lines, rate and stalls over the
// interval, and the totals), then a summary line at the end, as iperf3 reports intervals. A
// background thread polls the engine's progress counter, as --progress does: the workers only
// add to it, once per chunk.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "engine/run.hpp"

namespace fizzgen::cli {

/// --interval T and --report FILE: the period (none without T) and where the lines go, FILE
/// opened now (unwritable_report), so a path that cannot be written fails before the run.
struct interval_target {
  std::optional<std::chrono::steady_clock::duration> period;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file{nullptr, &std::fclose};
  std::FILE* out() const noexcept { return file ? file.get() : stderr; }
};
/// Throws std::invalid_argument for a period that is no duration above 0, or FILE without T.
interval_target open_interval(std::string const& interval, std::string const& report);

class interval_report {
 public:
  /// Starts reporting to out every `period` (a signal ends the run, whose end writes the summary).
  /// Lines and stalls are the writer's; for a reader (`writer` false: check, sink) they are null.
  interval_report(progress_counter const& counter, std::FILE* out, std::chrono::steady_clock::duration period,
                  bool writer = true);
  ~interval_report();
  interval_report(interval_report const&) = delete;
  interval_report& operator=(interval_report const&) = delete;
  /// Writes the interval so far and the summary with `status`; once only. False when out failed.
  bool finish(std::string const& status) noexcept;
  /// Ends the reporting without a summary (the run never started: a usage error).
  void cancel() noexcept;

 private:
  using clock_type = std::chrono::steady_clock;
  struct totals {
    std::uint64_t bytes = 0, lines = 0, stalls = 0;
  };
  void loop(std::stop_token const& stop);
  /// Writes the interval that ends now; mutex_ must be held.
  void line(clock_type::time_point now);

  progress_counter const& counter_;
  std::FILE* out_;
  clock_type::duration period_;
  bool writer_;
  clock_type::time_point start_, last_;
  totals at_last_;
  std::mutex mutex_;
  bool finished_ = false;  ///< guarded by mutex_
  std::condition_variable_any wake_;
  std::jthread thread_;
};

}  // namespace fizzgen::cli
