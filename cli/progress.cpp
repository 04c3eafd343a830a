#include "cli/progress.hpp"

#include <unistd.h>

#include <cstdio>
#include <iterator>
#include <stdexcept>

#include "cli/usage.hpp"

namespace fizzgen::cli {
namespace {

/// "512 MiB", "1.50 GiB": binary units, three significant digits like pv.
std::string human_bytes(double bytes) {
  static constexpr char const* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  char buf[32];
  int const decimals = unit == 0 || bytes >= 100 ? 0 : bytes >= 10 ? 1 : 2;
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, bytes, kUnits[unit]);
  return buf;
}

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
  if (when == "force" || when == "always") return true;
  throw std::invalid_argument("--progress: '" + when + "' is not a choice (use auto, force or never)");
}

std::string format_progress(std::uint64_t bytes, std::uint64_t lines, double seconds, double bytes_per_second,
                            bool final) {
  auto const whole = static_cast<unsigned long long>(seconds);
  char elapsed[32];
  std::snprintf(elapsed, sizeof elapsed, "%llu:%02llu:%02llu", whole / 3600, whole / 60 % 60, whole % 60);
  std::string line = "fizzgen: " + human_bytes(static_cast<double>(bytes)) + " " + elapsed + " [" +
                     human_bytes(bytes_per_second) + "/s" + (final ? " average" : "") + "] " + counted(lines, "line");
  return line;
}

progress_display::progress_display(progress_counter const& counter, int fd, std::stop_token cancel)
    : counter_(counter),
      fd_(fd),
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
  std::string const text = format_progress(bytes, lines, elapsed, rate, final);
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
