#pragma once
// `fizzgen tune`'s options; the measuring and storing is bench/tune.hpp.

#include <CLI/CLI.hpp>
#include <string>

namespace fizzgen::cli {

struct tune_command {
  CLI::App* app = nullptr;
  std::string bytes = "2G";  ///< per run
  std::string reps = "3";
  std::string timeout = "60";
  bool dry_run = false;  ///< measure and print, store nothing
};

void add_tune_command(CLI::App& app, tune_command& t);

/// Returns 0 when a plan was measured (and stored unless --dry-run), 1 when runs failed or the
/// plan could not be written. Throws std::invalid_argument for bad usage.
int run_tune(tune_command const& t);

}  // namespace fizzgen::cli
