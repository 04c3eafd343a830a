#pragma once
// A stream command from its option values to its exit status: the chunk and pipe sizes for this
// machine, the engine's run (engine/stream.hpp) with --progress, --interval, --stats and --json
// around it, and the exit status as GNU tools give it. The front end fills a stream_request.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "engine/run.hpp"  // and through it the generator interface (report/ names no generators/ header)
#include "engine/sizing.hpp"

namespace fizzgen::cli {

/// Options shared by every stream subcommand: numbers as CLI11 converted them (nullopt: not
/// given), the rest as text so that later errors and --stats name the exact input.
struct stream_request {
  std::optional<std::uint64_t> count, bytes;
  std::optional<unsigned> threads;
  std::string reuse = "auto", helper = "auto", idle_poll = "auto", pipe_size, stats_json;
  bool generate_only = false, pipe_only = false, stats = false, no_pin = false;
  std::string progress;               ///< --progress[=WHEN]: "" not given, "true" plain --progress, else WHEN
  std::string chunk_bytes;            ///< hidden --chunk-bytes N (for fizzgen bench); "" the generator's default
  std::string buffers;                ///< hidden --buffers N per worker (for experiments); "" sized from the pipe
  std::optional<std::uint64_t> rate;  ///< --rate R bytes per second; nullopt unthrottled
  std::string duration;               ///< --duration T; "" until the stream ends
  std::string write_size;             ///< --write-size N | A,B,... | random:A..B; "" whole chunks (vmsplice)
  std::optional<std::uint64_t> seed;  ///< --seed S for random choices; nullopt a fresh one
  std::string stall;                  ///< --stall N:T | random:N:T; "" no stalls
  std::string burst;                  ///< --burst ON/OFF; "" no bursts
  std::string interval;               ///< --interval T; "" no interval reports
  std::string report;                 ///< --report FILE; "" stderr
  bool payload_seed = false;          ///< the stream itself is drawn with --seed (fizzgen random)
};

/// The chunk and pipe sizes for a stream of `kind` on this machine: from the plan `fizzgen tune`
/// stored (engine/plan.hpp) when `tunable` and one fits, else from the model (engine/sizing.hpp);
/// --chunk-bytes and --pipe-size override either. Throws std::invalid_argument naming a bad value.
stream_sizes sizes_for(stream_request const& t, stream_kind kind, bool tunable = false);
/// --seed, or a fresh seed when not given.
std::uint64_t seed_option(stream_request const& t);

/// Streams gen to fd 1 (or to a counting sink), shows and writes what t asks for and returns the
/// exit status; `arch` names the kernel for the statistics. Throws std::invalid_argument (bad
/// usage) and unwritable_report before the run. May end the process with SIGPIPE or the signal
/// that stopped the run.
int stream(generator const& gen, std::string_view arch, stream_request const& t, stream_sizes const& sizes);

/// The exit status for how a write path ended: 0, death by SIGPIPE when the reader went away (as
/// GNU tools, so `set -o pipefail` scripts see 141), or 1 after one line naming the error.
int exit_status(emit_status status, std::string const& error);

}  // namespace fizzgen::cli
