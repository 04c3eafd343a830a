#pragma once
// `fizzgen sink`: a consumer for measurements, like `pv -q >/dev/null` with a report. It reads
// standard input to the end (consumer/consume.hpp) and says how many bytes came, in how long.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

namespace fizzgen::cli {

/// What `fizzgen sink` parsed; CLI11 writes into it while parsing, so it must outlive the parse.
struct sink_command {
  CLI::App* app = nullptr;
  bool read = false, splice = false, quiet = false;
  std::string json;                 ///< --json [FILE]: "" none, "-" standard output
  std::string block_size = "128K";  ///< --read's buffer
  std::string progress;             ///< --progress[=WHEN], as the streams take it
  std::string interval, report;     ///< --interval T, --report FILE; "" not given
};

/// Registers `sink` on app, writing into s.
void add_sink_command(CLI::App& app, sink_command& s);

/// Runs `fizzgen sink` on standard input: report on stderr (unless --quiet), JSON with --json.
/// Returns 0, or 1 when the input failed or the JSON could not be written. Throws std::invalid_argument for bad usage.
int run_sink(sink_command const& s);

}  // namespace fizzgen::cli
