#include "report/progress.hpp"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <utility>
#include <vector>

#include "report/units.hpp"

namespace fizzgen::cli {
namespace {

/// Best effort: a progress line that cannot be written is not worth stopping the stream for.
void write_all(int fd, std::string const& s) noexcept {
  std::size_t done = 0;
  while (done < s.size()) {
    ssize_t const n = ::write(fd, s.data() + done, s.size() - done);
    if (n <= 0) return;
    done += static_cast<std::size_t>(n);
  }
}

}  // namespace

bool want_progress(std::string const& when, int fd) {
  if (when.empty() || when == "false" || when == "never") return false;
  if (when == "true" || when == "auto") return ::isatty(fd) == 1;
  if (when == "force" || when == "always" || when == "numeric") return true;
  throw std::invalid_argument("--progress: '" + when + "' is not a choice (use " + kProgressChoices + ")");
}

progress_style progress_style_for(std::string const& when) { return {when == "numeric", true}; }

namespace {

/// "1:02:05": hours, minutes, seconds.
std::string clock_time(double seconds) {
  auto const whole = static_cast<unsigned long long>(std::max(seconds, 0.0));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%llu:%02llu:%02llu", whole / 3600, whole / 60 % 60, whole % 60);
  return buf;
}

/// The share of the nearest known limit already reached, in [0, 1]; nullopt when none is known.
std::optional<double> done_fraction(progress_view const& v) {
  std::optional<double> f;
  auto const take = [&f](std::uint64_t done, std::optional<std::uint64_t> total) {
    if (!total) return;
    double const x = *total == 0 ? 1.0 : std::min(1.0, static_cast<double>(done) / static_cast<double>(*total));
    f = std::max(f.value_or(0.0), x);
  };
  take(v.bytes, v.total.bytes);
  take(v.lines, v.total.lines);
  return f;
}

}  // namespace

std::string format_progress(progress_view const& v, std::size_t width) {
  // The fields in the order they are shown; `drop` is the order they are left out in to fit.
  struct field {
    std::string text;
    int drop;  ///< lower goes first; the byte count (highest) is never left out
  };
  std::vector<field> fields;
  fields.push_back({"fizzgen:", 1});
  fields.push_back({human_bytes(static_cast<double>(v.bytes)), 6});
  fields.push_back({clock_time(v.seconds), 3});
  // Appended piece by piece: GCC 12 warns (a false -Wrestrict) on the chain of temporaries.
  std::string rate = "[";
  rate.append(human_rate(v.bytes_per_second)).append(v.final ? " average]" : "]");
  fields.push_back({std::move(rate), 5});
  if (v.lines_known) fields.push_back({counted(v.lines, "line"), 0});
  if (std::optional<double> const f = done_fraction(v)) {
    fields.push_back({std::to_string(static_cast<int>(*f * 100)) + "%", 4});
    // The rest at the current rate: the bytes still to come, from the share of the total done.
    if (!v.final && *f > 0 && *f < 1 && v.bytes_per_second > 0)
      fields.push_back({"ETA " + clock_time((1 - *f) * (static_cast<double>(v.bytes) / *f) / v.bytes_per_second), 2});
  }
  auto const joined = [&fields] {
    std::string line;
    for (field const& f : fields) line += (line.empty() ? "" : " ") + f.text;
    return line;
  };
  std::string line = joined();
  if (width == 0) return line;
  std::size_t const room = width > 1 ? width - 1 : 1;
  while (line.size() > room && fields.size() > 1) {
    auto const least =
        std::min_element(fields.begin(), fields.end(), [](field const& a, field const& b) { return a.drop < b.drop; });
    fields.erase(least);
    line = joined();
  }
  if (line.size() > room) line.resize(room);
  return line;
}

std::string format_numeric_progress(progress_view const& v) {
  if (std::optional<double> const f = done_fraction(v)) return std::to_string(static_cast<int>(*f * 100));
  return std::to_string(v.bytes);
}

std::size_t terminal_width(int fd) noexcept {
  winsize ws{};
  if (::ioctl(fd, TIOCGWINSZ, &ws) != 0) return 0;
  return ws.ws_col;
}

progress_display::progress_display(progress_counter const& counter, int fd, std::stop_token cancel,
                                   progress_total total, progress_style style)
    : counter_(counter),
      fd_(fd),
      total_(total),
      style_(style),
      on_cancel_(std::move(cancel),
                 [this] {
                   std::lock_guard lock(mutex_);
                   cancelled_ = true;
                   wake_.notify_all();
                 }),
      thread_([this](std::stop_token stop) { loop(stop); }) {}

progress_display::~progress_display() { finish(); }

void progress_display::finish() noexcept {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
  std::lock_guard lock(mutex_);
  if (!finished_) draw(true);
}

void progress_display::loop(std::stop_token stop) {
  for (auto& s : samples_) s.when = start_;
  std::unique_lock lock(mutex_);
  for (;;) {
    // Wakes on the tick, on finish() (stop) or on a signal (cancelled_).
    bool const cancelled = wake_.wait_for(lock, stop, kTick, [this] { return cancelled_; });
    if (stop.stop_requested()) return;  // finish() draws the final line
    if (cancelled) {
      draw(true);  // a signal: the process may end before finish() runs
      return;
    }
    draw(false);
  }
}

void progress_display::draw(bool final) {
  if (finished_) return;
  auto const now = clock_type::now();
  // Relaxed: any recent value will do; the counter only grows.
  std::uint64_t const bytes = counter_.bytes.load(std::memory_order_relaxed);
  std::uint64_t const lines = counter_.lines.load(std::memory_order_relaxed);
  double const elapsed = std::chrono::duration<double>(now - start_).count();
  double rate = 0;
  if (final) {
    rate = elapsed > 0 ? static_cast<double>(bytes) / elapsed : 0;
  } else {
    // The current rate: over the last kSamples ticks (about a second), like pv's.
    sample const& oldest = samples_[next_sample_];
    double const span = std::chrono::duration<double>(now - oldest.when).count();
    rate = span > 0 ? static_cast<double>(bytes - oldest.bytes) / span : 0;
    samples_[next_sample_] = {now, bytes};
    next_sample_ = (next_sample_ + 1) % kSamples;
  }
  progress_view const view{bytes, lines, elapsed, rate, final, total_, style_.lines};
  if (style_.numeric) {  // a number a line, for scripts (pv -n): nothing to redraw over
    finished_ = final;
    write_all(fd_, format_numeric_progress(view) + '\n');
    return;
  }
  // The width is asked at every redraw: the terminal may have been resized.
  std::string const text = format_progress(view, terminal_width(fd_));
  // "\r" and spaces rather than a terminal escape: the line also reads well in a file (=force).
  std::string out = "\r" + text;
  if (drawn_ > text.size()) out.append(drawn_ - text.size(), ' ');
  drawn_ = text.size();
  if (final) {
    out += '\n';
    finished_ = true;
  }
  write_all(fd_, out);
}

}  // namespace fizzgen::cli
