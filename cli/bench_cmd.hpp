#pragma once
// `fizzgen bench`'s options; the measurements themselves are bench/sweep.hpp.

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

/// Checks the options and runs bench::run_bench. Throws std::invalid_argument for bad usage.
int run_bench(bench_command const& b);

}  // namespace fizzgen::cli
