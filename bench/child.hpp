#pragma once
// One measurement run of `fizzgen bench`: a child fizzgen (this binary) with --json FILE, its
// stdout into a consumer child (`fizzgen sink --splice|--read --json`) through a pipe, or into
// /dev/null for generate-only; both waited for with a time limit.

#include <signal.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fizzgen::bench {

using json = nlohmann::ordered_json;

enum class measurement { generate_only, pipe_only, end_to_end };
char const* to_string(measurement m) noexcept;

/// One configuration: what is measured, with which knobs.
struct config {
  measurement what = measurement::end_to_end;
  std::string consumer;  ///< "" (generate-only), "splice" or "read": the `fizzgen sink` mode
  unsigned threads = 1;
  std::size_t chunk_bytes = 0;
  std::size_t pipe_size = 0;
  bool progress = false;  ///< --progress=force (stderr to a file)
};

/// What one run gave; numbers from the producer's --json FILE and the consumer's --json.
struct run_result {
  bool ok = false;
  std::string error;                                            ///< why not ok
  double gib_per_second = 0;                                    ///< the producer's engine: bytes / run time
  double consumer_gib_per_second = 0;                           ///< the sink's own figure (first byte to end)
  double wall_gib_per_second = 0;                               ///< bytes / (spawn to both exited): includes start-up
  double fill_seconds = 0, wait_seconds = 0, emit_seconds = 0;  ///< summed over workers
  std::string output_path, reuse;
  std::size_t pipe_size_granted = 0;
  unsigned pinned = 0;
};

/// Runs `exe` once for config c, `bytes` bytes, using dir for its files. Never throws for a
/// failed child: the result says why.
run_result run_once(std::string const& exe, config const& c, std::uint64_t bytes, std::string const& dir,
                    std::chrono::seconds limit);

/// SIGINT, SIGTERM and SIGHUP while measuring: the run in progress is killed (run_once then says
/// "interrupted"), the caller stops, its run directory goes, and finish() ends the process by the
/// same signal, so that an interrupted bench or tune leaves nothing behind in $TMPDIR.
class interrupt_guard {
 public:
  interrupt_guard();
  ~interrupt_guard();  ///< restores the previous actions
  interrupt_guard(interrupt_guard const&) = delete;
  interrupt_guard& operator=(interrupt_guard const&) = delete;
  /// The signal received, 0 if none.
  static int received() noexcept;
  /// If a signal arrived: restores its default action and raises it again (the process ends).
  void finish() noexcept;

 private:
  struct sigaction old_[3];
};

/// A directory for the runs' files under $TMPDIR (or /tmp), named prefix_XXXXXX, removed with
/// everything in it when this goes; the constructor throws std::runtime_error when it cannot be made.
class run_dir {
 public:
  explicit run_dir(std::string const& prefix);
  ~run_dir();
  run_dir(run_dir const&) = delete;
  run_dir& operator=(run_dir const&) = delete;
  std::string const& path() const noexcept { return path_; }

 private:
  std::string path_;
};

/// This executable's path, for the children.
std::string self_exe();
/// The median (0 for none).
double median_of(std::vector<double> v);

}  // namespace fizzgen::bench
