#pragma once
// --stats (a human summary on stderr) and --json FILE (the same, machine-readable: cli/report.hpp).

#include <cstdio>
#include <string>

#include "engine/run.hpp"
#include "report/report.hpp"

namespace fizzgen::cli {

/// What ran, beside the engine's own report.
struct run_setup {
  std::string mode;         ///< "stream", "generate-only", "pipe-only"
  std::string arch;         ///< kernel arch used, "none" when the generator has no kernel
  std::string output_path;  ///< "vmsplice", "write", "null"
  std::string reuse;        ///< reuse policy and why
  std::size_t pipe_size = 0;
  std::string sizing;               ///< the chunk and pipe sizes asked for, and what they rest on
  std::size_t pipe_size_asked = 0;  ///< --pipe-size; more than pipe_size when the system allowed less
  bool spin = false;                ///< SPLICE_F_NONBLOCK polling
  std::uint64_t rate = 0;           ///< --rate in bytes per second, 0: unthrottled
  double duration_seconds = 0;      ///< --duration, 0: none
  std::string write_size;           ///< --write-size as given, "" whole chunks
  std::uint64_t seed = 0;           ///< the seed of the random choices, when seeded
  bool seeded = false;
  std::string stall;           ///< --stall as given
  std::string burst;           ///< --burst as given
  unsigned threads_asked = 0;  ///< more than the threads run: the rest would leave the reader no CPU
  bool idle_poll = false;      ///< idle CPUs polled while the stream ran (engine/idle_poll.hpp)
  std::string idle_poll_why;   ///< why they did or did not
};

void print_stats(std::FILE* out, run_setup const& setup, run_report const& report);
/// How a run ended, for every report: "ok" (the end asked for: --count, --bytes, --duration),
/// "interrupted" (a signal: `signo`), "reader_gone" or "failed".
std::string run_status(run_report const& report, int signo);
/// The statistics as the members of the JSON report; `lines` emitted, `signo` the signal that
/// stopped the run (0: none).
json stats_json(run_setup const& setup, run_report const& report, std::uint64_t lines, int signo);

}  // namespace fizzgen::cli
