#pragma once
// One measurement run of `fizzgen bench`: a child fizzgen (this binary) with --stats-json, its
// stdout into a consumer child (`fizzgen sink --splice|--read --json`) through a pipe, or into
// /dev/null for generate-only; both waited for with a time limit.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace fizzgen::cli::bench {

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

/// What one run gave; numbers from the producer's --stats-json and the consumer's --json.
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

/// This executable's path, for the children.
std::string self_exe();
/// A new directory for the runs' files under $TMPDIR (or /tmp), named prefix_XXXXXX; throws
/// std::runtime_error when it cannot be made.
std::string make_run_dir(std::string const& prefix);
/// The median (0 for none).
double median_of(std::vector<double> v);

/// The number after "key": in a JSON text (the first one), or `fallback`.
double json_number(std::string const& text, std::string const& key, double fallback = 0);
/// The sum of every number after "key": (per-worker fields).
double json_sum(std::string const& text, std::string const& key);
/// The string after "key": (the first one), unescaped only for \" and \\.
std::string json_string(std::string const& text, std::string const& key);

}  // namespace fizzgen::cli::bench
