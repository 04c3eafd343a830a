#pragma once
// `fizzgen bench`: the three measurements of the design, each on its own and all in one run, so
// that their ratios count even on a shared, noisy machine:
//   generate-only  workers fill buffers, a null sink counts them (no syscalls in the loop);
//   pipe-only      buffers filled once, vmspliced again and again into `fizzgen sink --splice`;
//   end-to-end     the stream into `fizzgen sink --splice` (pages dropped, like pv) and into
//                  `fizzgen sink --read` (one copy, like most programs).
// Every run is a child fizzgen (this same binary) with --stats-json (bench/child.hpp);
// configurations take turns, each `reps` times, and medians are reported with the machine they
// ran on.

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace fizzgen::bench {

using json = nlohmann::ordered_json;

struct settings {
  bool quick = false;         ///< fewer sizes
  std::FILE* table = stdout;  ///< where the table goes
  /// Takes the results as JSON (status first: ok, failed or interrupted, then machine, settings,
  /// results, ratios) when set; false when they could not be written.
  std::function<bool(json const&)> report;
  unsigned reps = 5;                  ///< >= 1
  std::uint64_t bytes = 0;            ///< per run, >= 1
  std::chrono::seconds timeout{120};  ///< a run taking longer is killed and counts as failed
  std::vector<std::string> only;      ///< sweeps to run (threads, pipe_size, chunk_bytes, progress); empty: all
};

/// Runs every measurement, prints the table and hands the results to settings::report. Returns 0,
/// or 1 when a run failed or the report could not be written. When SIGINT, SIGTERM or SIGHUP
/// arrives: stops, removes its files, reports what it has, and ends the process by the signal.
int run_bench(settings const& b);

}  // namespace fizzgen::bench
