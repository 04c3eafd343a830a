#pragma once
// What every stream subcommand shares: the options for limits, threads, buffer reuse and
// measurement, and the one function that runs a generator through the engine to stdout.

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/pacer.hpp"
#include "engine/sizing.hpp"
#include "generators/arch.hpp"
#include "generators/decimal.hpp"
#include "generators/generator.hpp"
#include "generators/rules.hpp"
#include "output/sink.hpp"
#include "output/size_pattern.hpp"

namespace fizzgen::cli {

/// Options shared by every stream subcommand: numbers as CLI11 converted them (nullopt: not
/// given), the rest as text so that later errors and --stats name the exact input.
struct stream_text {
  std::optional<std::uint64_t> count, bytes;
  std::optional<unsigned> threads;
  std::string reuse = "auto", pipe_size, stats_json;
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

struct fizzbuzz_text {
  std::string from = "1", to;
  std::vector<std::string> rules;
};

/// --count, --bytes, --rate, --duration, --threads, --reuse, --pipe-size, --generate-only,
/// --pipe-only, --no-pin, --stats, --json (alias --stats-json), --progress, and the hidden --chunk-bytes and --buffers.
void add_stream_options(CLI::App& app, stream_text& t);
/// --from and --rule.
void add_rule_options(CLI::App& app, fizzbuzz_text& t);

/// The rules given, or the classic ones.
rule_set to_rules(std::vector<std::string> const& texts);
/// A size option's value, nullopt when not given.
std::optional<std::uint64_t> size_option(char const* name, std::string const& text);
/// The chunk and pipe sizes for a stream of `kind` on this machine: from the plan `fizzgen tune`
/// stored (engine/plan.hpp) when `tunable` and one fits, else from the model (engine/sizing.hpp);
/// --chunk-bytes, --pipe-size and --threads override either. Throws std::invalid_argument naming a
/// bad value.
stream_sizes sizes_for(stream_text const& t, stream_kind kind, bool tunable = false);
/// --chunk-bytes, or `fallback` when not given; throws std::invalid_argument outside 4K..256M.
std::size_t chunk_bytes_option(stream_text const& t, std::size_t fallback);
/// --seed, or a fresh seed when not given.
std::uint64_t seed_option(stream_text const& t);
/// --write-size, drawing with `seed` (then `seeded` is set) for random:A..B; nullopt when not given.
std::optional<size_pattern> write_size_option(stream_text const& t, std::uint64_t seed, bool& seeded);
/// --stall and --burst, drawing stall points with `seed` (then `seeded` is set) for random:N:T.
pause_plan pause_options(stream_text const& t, std::uint64_t seed, bool& seeded);
/// --duration: more than 0; nullopt when not given.
std::optional<std::chrono::steady_clock::duration> duration_option(std::string const& text);
/// The arch by name, else by FIZZGEN_ARCH when set, else the best the CPU has; throws
/// std::invalid_argument naming the problem (and --arch or FIZZGEN_ARCH) for an unknown or
/// unavailable one.
kernel_arch const& choose_arch(std::string const& name);

/// The window of lines --from, --to and --count select.
struct window {
  decimal from;
  std::optional<std::uint64_t> lines;  ///< nullopt: unbounded
};
window parse_window(fizzbuzz_text const& f, stream_text const& t);

/// Streams gen to fd 1 (or to a counting sink), prints the statistics asked for and returns the
/// exit status; `arch` names the kernel for the statistics. May end the process with SIGPIPE.
int stream(generator const& gen, std::string_view arch, stream_text const& t, std::optional<std::uint64_t> byte_limit,
           stream_sizes const& sizes);

/// The exit status for how a write path ended: 0, death by SIGPIPE when the reader went away (as
/// GNU tools, so `set -o pipefail` scripts see 141), or 1 after one line naming the error.
int exit_status(emit_status status, std::string const& error);

}  // namespace fizzgen::cli
