#pragma once
// `fizzgen sink` from its option values to its exit status: standard input consumed to its end
// (consumer/consume.hpp) with --progress and --interval while it arrives, then bytes, seconds and
// rate on stderr and, with --json, as the JSON report.

#include <string>

namespace fizzgen::cli {

/// sink's options, as given.
struct sink_request {
  bool read = false;                ///< --read: read(2) instead of splice(2)
  bool quiet = false;               ///< no report on stderr
  std::string json;                 ///< --json [FILE]: "" none, "-" standard output
  std::string block_size = "128K";  ///< --read's buffer
  std::string progress;             ///< --progress[=WHEN], as the streams take it
  std::string interval, report;     ///< --interval T, --report FILE; "" not given
};

/// Runs `fizzgen sink` on standard input: report on stderr (unless quiet), JSON with --json.
/// Returns 0, or 1 when the input failed or a report could not be written. Throws
/// std::invalid_argument for bad usage and unwritable_report before reading.
int run_sink(sink_request const& s);

}  // namespace fizzgen::cli
