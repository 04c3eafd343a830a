#pragma once
// `fizzgen tune`'s options; the measuring and storing is bench/tune.hpp.

#include <CLI/CLI.hpp>
#include <cstdint>

#include "bench/tune.hpp"

namespace fizzgen::cli {

/// What `fizzgen tune` parsed; CLI11 writes into it while parsing, so it must outlive the parse.
struct tune_command {
  CLI::App* app = nullptr;
  bench::tune_settings run{.bytes = std::uint64_t{2} << 30};  ///< --bytes, --reps, --dry-run as given
  std::uint64_t timeout = 60;                                 ///< seconds a run may take
};
void add_tune_command(CLI::App& app, tune_command& t);

/// Returns 0 when a plan was measured (and stored unless --dry-run), 1 when runs failed or the
/// plan could not be written. Throws std::invalid_argument for bad usage.
int run_tune(tune_command const& t);

}  // namespace fizzgen::cli
