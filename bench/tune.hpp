#pragma once
// `fizzgen tune`: measures candidate plans (chunk size, pipe size, threads) end to end into this
// binary's own splicing sink, and stores the fastest as this machine's plan (engine/plan.hpp),
// which every later `fizzgen` stream on the machine then uses.

#include <chrono>
#include <cstdint>

namespace fizzgen::bench {

struct tune_settings {
  std::uint64_t bytes = 0;  ///< per run, >= 1M
  std::uint64_t reps = 3;   ///< rounds, >= 1
  std::chrono::seconds timeout{60};
  bool dry_run = false;  ///< measure and print, store nothing
};

/// Returns 0 when a plan was measured (and stored unless dry_run), 1 when runs failed or the plan
/// could not be written; throws std::invalid_argument when there is nowhere to store a plan. Ends
/// the process by the signal after removing its files when SIGINT, SIGTERM or SIGHUP arrives.
int run_tune(tune_settings const& t);

}  // namespace fizzgen::bench
