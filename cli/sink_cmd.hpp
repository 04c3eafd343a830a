#pragma once
// `fizzgen sink`: a consumer for measurements, like `pv -q >/dev/null` with a report. It reads
// standard input to the end (consumer/consume.hpp) and says how many bytes came, in how long.

#include <CLI/CLI.hpp>

#include "report/sink_run.hpp"

namespace fizzgen::cli {

/// What `fizzgen sink` parsed; CLI11 writes into it while parsing, so it must outlive the parse.
struct sink_command {
  CLI::App* app = nullptr;
  bool splice = false;  ///< --splice, the default, given
  sink_request run;
};

/// Registers `sink` on app, writing into s.
void add_sink_command(CLI::App& app, sink_command& s);

}  // namespace fizzgen::cli
