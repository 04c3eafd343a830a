#pragma once
// A stored plan: the sizes and thread count that `fizzgen tune` measured best on this machine,
// kept under the user's cache directory (as FFTW keeps its wisdom) and used by every later stream
// on the same machine instead of the model of engine/sizing.hpp. A plan names the machine it was
// measured on by what decides the sizes (CPU model, cache sizes, kernel, fs.pipe-max-size, CPUs
// allowed); one that names another machine is ignored, and `--stats` says why.

#include <cstddef>
#include <ctime>
#include <optional>
#include <string>
#include <vector>

namespace fizzgen {

/// What decides a plan, as text: two machines with the same identity get the same plan.
struct machine_identity {
  std::string cpu;     ///< /proc/cpuinfo's model name
  std::string kernel;  ///< uname -r
  std::size_t l2_bytes = 0, l3_bytes = 0, pipe_max = 0;
  std::string cpus;  ///< the CPUs allowed, "0,1"
};

/// This machine, read once.
machine_identity const& this_machine();

struct stored_plan {
  machine_identity machine;
  std::size_t chunk_bytes = 0;
  std::size_t pipe_bytes = 0;
  unsigned threads = 0;
  double gib_per_second = 0;        ///< what tune measured for it
  double model_gib_per_second = 0;  ///< and for the model's choice, in the same run
  std::string tuned;                ///< when, UTC
};

/// The file's text; parse_plan(format_plan(p)) == p.
std::string format_plan(stored_plan const& p);
/// nullopt when `text` is not a plan this version can read.
std::optional<stored_plan> parse_plan(std::string const& text);
/// What differs between two machines ("kernel, cpus"); "" when they are the same.
std::string differences(machine_identity const& a, machine_identity const& b);

/// Where plans live: $FIZZGEN_PLAN when set ("" for none at all), else
/// $XDG_CACHE_HOME/fizzgen/plan, else ~/.cache/fizzgen/plan; "" when there is no home.
std::string plan_path();

struct plan_lookup {
  std::optional<stored_plan> plan;  ///< set when one is stored and fits `machine`
  std::string note;                 ///< for --stats: where it came from, or why it was ignored ("" none)
};
plan_lookup find_plan(std::string const& path, machine_identity const& machine);

/// Writes the plan (creating its directory); false with `error` set when it cannot.
bool save_plan(std::string const& path, stored_plan const& p, std::string& error);

/// t as ISO 8601 in UTC, "2026-12-01T16:00:00Z": how plans (and reports) write a time.
std::string utc_text(std::time_t t);

}  // namespace fizzgen
