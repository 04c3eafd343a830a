#pragma once
// `fizzgen bench`'s options; the measurements themselves are bench/sweep.hpp.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "bench/sweep.hpp"

namespace fizzgen::cli {

/// What `fizzgen bench` parsed; CLI11 writes into it while parsing, so it must outlive the parse.
struct bench_command {
  CLI::App* app = nullptr;
  bench::settings run;                 ///< --quick, --reps, --only as given
  std::string json;                    ///< --json FILE
  std::optional<std::uint64_t> bytes;  ///< per run; nullopt: 2G with --quick, else 4G
  std::uint64_t timeout = 120;         ///< seconds one run may take before it is killed
};

/// Registers `bench` on app, writing into b.
void add_bench_command(CLI::App& app, bench_command& b);

/// Checks the options and runs bench::run_bench. Throws std::invalid_argument for bad usage.
int run_bench(bench_command const& b);

}  // namespace fizzgen::cli
