#include "report/interval.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "parse/values.hpp"
#include "report/report.hpp"

namespace fizzgen::cli {
namespace {

double seconds(std::chrono::steady_clock::duration d) { return std::chrono::duration<double>(d).count(); }

}  // namespace

interval_target open_interval(std::string const& interval, std::string const& report) {
  interval_target t;
  if (!interval.empty()) t.period = parse::parse_positive_duration("--interval", interval, interval);
  if (!report.empty() && !t.period) throw std::invalid_argument("--report: only with --interval T");
  if (!report.empty()) {
    t.file.reset(std::fopen(report.c_str(), "w"));
    if (t.file == nullptr) throw unwritable_report(report + ": " + std::strerror(errno));
  }
  return t;
}

interval_report::interval_report(progress_counter const& counter, std::FILE* out,
                                 std::chrono::steady_clock::duration period, bool writer)
    : counter_(counter),
      out_(out),
      period_(period),
      writer_(writer),
      start_(clock_type::now()),
      last_(start_),
      thread_([this](std::stop_token const& stop) { loop(stop); }) {}

interval_report::~interval_report() { finish("ok"); }

void interval_report::line(clock_type::time_point now) {
  totals const t{counter_.bytes.load(std::memory_order_relaxed), counter_.lines.load(std::memory_order_relaxed),
                 counter_.stalls.load(std::memory_order_relaxed)};
  double const span = seconds(now - last_);
  auto const writers = [this](std::uint64_t n) { return writer_ ? json(n) : json(nullptr); };
  json const j = {{"interval", {{"start", seconds(last_ - start_)}, {"end", seconds(now - start_)}}},
                  {"bytes", t.bytes - at_last_.bytes},
                  {"lines", writers(t.lines - at_last_.lines)},
                  {"bytes_per_second", span > 0 ? static_cast<double>(t.bytes - at_last_.bytes) / span : 0.0},
                  {"stalls", writers(t.stalls - at_last_.stalls)},
                  {"total_bytes", t.bytes},
                  {"total_lines", writers(t.lines)}};
  std::fprintf(out_, "%s\n", j.dump().c_str());
  std::fflush(out_);
  at_last_ = t;
  last_ = now;
}

void interval_report::loop(std::stop_token const& stop) {
  std::unique_lock lock(mutex_);
  for (clock_type::time_point next = start_ + period_; !finished_; next += period_) {
    // Woken early only by the end of the run (finish).
    wake_.wait_until(lock, stop, next, [this] { return finished_; });
    if (finished_ || stop.stop_requested()) return;
    line(clock_type::now());
  }
}

bool interval_report::finish(std::string const& status) noexcept {
  bool written = true;
  try {
    std::lock_guard const lock(mutex_);
    if (finished_) return true;
    finished_ = true;
    clock_type::time_point const now = clock_type::now();
    if (now > last_) line(now);  // the part interval since the last line
    double const total = seconds(now - start_);
    json const j = {{"summary",
                     {{"seconds", total},
                      {"bytes", at_last_.bytes},
                      {"lines", writer_ ? json(at_last_.lines) : json(nullptr)},
                      {"bytes_per_second", total > 0 ? static_cast<double>(at_last_.bytes) / total : 0.0},
                      {"stalls", writer_ ? json(at_last_.stalls) : json(nullptr)},
                      {"status", status}}}};
    std::fprintf(out_, "%s\n", j.dump().c_str());
  } catch (...) {  // no memory for a line: the report is incomplete, which the caller reports
    written = false;
  }
  wake_.notify_all();
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
  return written && std::fflush(out_) == 0 && std::ferror(out_) == 0;
}

void interval_report::cancel() noexcept {
  {
    std::lock_guard const lock(mutex_);
    finished_ = true;
  }
  wake_.notify_all();
  thread_.request_stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace fizzgen::cli
