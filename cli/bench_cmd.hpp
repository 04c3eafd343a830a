#pragma once
// `fizzgen bench`: the three measurements of the design, each on its own and all in one run, so
// that their ratios count even on a shared, noisy machine:
//   generate-only  workers fill buffers, a null sink counts them (no syscalls in the loop);
//   pipe-only      buffers filled once, vmspliced again and again into `fizzgen sink --splice`;
//   end-to-end     the stream into `fizzgen sink --splice` (pages dropped, like pv) and into
//                  `fizzgen sink --read` (one copy, like most programs).
// Every run is a child fizzgen (this same binary) with --stats-json; configurations take turns,
// each `reps` times, and medians are reported with the machine they ran on.

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace fizzgen::cli {

/// What `fizzgen bench` parsed; CLI11 writes into it while parsing, so it must outlive the parse.
struct bench_command {
  CLI::App* app = nullptr;
  bool quick = false;
  std::string json;               ///< --json FILE
  std::string reps;               ///< "" = 5
  std::string bytes;              ///< per run; "" = 2G with --quick, else 4G
  std::string timeout = "120";    ///< seconds one run may take before it is killed
  std::vector<std::string> only;  ///< --only SWEEP...: threads, pipe_size, chunk_bytes, progress
};

/// Registers `bench` on app, writing into b.
void add_bench_command(CLI::App& app, bench_command& b);

/// Runs every measurement, prints the table on stdout (and JSON to --json FILE). Returns 0, or 1
/// when a run failed. Throws std::invalid_argument for bad usage.
int run_bench(bench_command const& b);

}  // namespace fizzgen::cli
