#pragma once
// --progress: a live pv-style line on stderr (bytes, lines, rate, elapsed), redrawn a few times a
// second by a background thread that polls the engine's progress counter. The workers never wait
// for it: they only add to the counter, once per chunk.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <thread>

#include "engine/run.hpp"

namespace fizzgen::cli {

/// Whether --progress[=WHEN] asks for the display on fd: "" (not given), "false" or "never": no;
/// "true" or "auto" (plain --progress): when fd is a terminal; "force", "always" or "numeric":
/// yes. Throws std::invalid_argument naming the option for any other value.
bool want_progress(std::string const& when, int fd);

/// The values --progress takes, as its help and messages list them.
inline constexpr char const* kProgressChoices = "auto, force, numeric or never";

/// How the display looks.
struct progress_style {
  bool numeric = false;  ///< --progress=numeric: one number per line, as pv -n writes them
  bool lines = true;     ///< the stream counts lines (sink does not: it never sees them)
};

/// The style --progress=WHEN asks for (numeric for "numeric").
progress_style progress_style_for(std::string const& when);

/// Where a run is known to stop (nullopt: no such limit): what the percent and the ETA are of.
/// The first limit reached ends the run, so the percent is that of the nearest.
struct progress_total {
  std::optional<std::uint64_t> bytes;
  std::optional<std::uint64_t> lines;
};

/// What one redraw shows.
struct progress_view {
  std::uint64_t bytes = 0, lines = 0;
  double seconds = 0;           ///< since the start
  double bytes_per_second = 0;  ///< the current rate; the average on the final line
  bool final = false;
  progress_total total;
  bool lines_known = true;  ///< false: the line count is not shown
};

/// One line of the display, without "\r" or "\n":
/// "fizzgen: 1.50 GiB 0:00:03 [512 MiB/s] 12345678 lines", then " 45% ETA 0:00:04" when a total
/// is known (as pv -s shows it); the final line says "average" and has no ETA. With width > 0 the
/// line takes at most width - 1 columns (a full last column would wrap on many terminals): fields
/// are left out, the least telling first (lines, the name, the ETA, the elapsed time, the percent,
/// the rate), and what still does not fit is cut.
std::string format_progress(progress_view const& view, std::size_t width = 0);

/// One line of --progress=numeric, without "\n": the percent done (a whole number, as pv -n)
/// when a total is known, else the bytes so far.
std::string format_numeric_progress(progress_view const& view);

/// The columns of the terminal on fd, 0 when fd is not one (a file: no limit).
std::size_t terminal_width(int fd) noexcept;

class progress_display {
 public:
  /// Starts redrawing the line on fd every kTick. A stop request on `cancel` (the signal guard's
  /// token) finishes the line at once, so that a process killed by the signal leaves a clean line.
  progress_display(progress_counter const& counter, int fd, std::stop_token cancel, progress_total total = {},
                   progress_style style = {});
  /// finish().
  ~progress_display();
  progress_display(progress_display const&) = delete;
  progress_display& operator=(progress_display const&) = delete;

  /// Stops redrawing and writes the final line (average rate) with its newline; once only.
  void finish() noexcept;

  static constexpr std::chrono::milliseconds kTick{250};

 private:
  using clock_type = std::chrono::steady_clock;
  void loop(std::stop_token stop);
  /// Draws the line; mutex_ must be held.
  void draw(bool final);

  progress_counter const& counter_;
  int const fd_;
  progress_total const total_;
  progress_style const style_;
  clock_type::time_point const start_ = clock_type::now();
  std::mutex mutex_;
  std::condition_variable_any wake_;
  bool cancelled_ = false;  ///< guarded by mutex_
  bool finished_ = false;   ///< guarded by mutex_
  std::size_t drawn_ = 0;   ///< length of the line on screen, to blank what a shorter one leaves
  /// Samples of the last second, for the current rate (the oldest is overwritten).
  struct sample {
    clock_type::time_point when;
    std::uint64_t bytes = 0;
  };
  static constexpr std::size_t kSamples = 5;
  sample samples_[kSamples];
  std::size_t next_sample_ = 0;
  std::stop_callback<std::function<void()>> on_cancel_;
  std::jthread thread_;
};

}  // namespace fizzgen::cli
