#pragma once
// `fizzgen sink`: a consumer for measurements, like `pv -q >/dev/null` with a report. It reads
// standard input to the end and says how many bytes came, in how long.
//   --splice (default): splice(2) from the pipe into /dev/null, the way pv moves data: no copy,
//                       the pages are dropped (never forwarded), so --reuse auto stays in place.
//   --read:             read(2) into a buffer, the way most programs consume: one copy per byte.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>

#include "engine/run.hpp"

namespace fizzgen::cli {

/// What `fizzgen sink` parsed; CLI11 writes into it while parsing, so it must outlive the parse.
struct sink_command {
  CLI::App* app = nullptr;
  bool read = false, splice = false, quiet = false;
  std::string json;                 ///< --json [FILE]: "" none, "-" standard output
  std::string block_size = "128K";  ///< --read's buffer
  std::string progress;             ///< --progress[=WHEN], as the streams take it
};

/// Registers `sink` on app, writing into s.
void add_sink_command(CLI::App& app, sink_command& s);

/// What one sink run measured.
struct sink_report {
  std::uint64_t bytes = 0;
  double seconds = 0;  ///< from the first byte to the end of input (0 when no byte came)
  std::string method;  ///< "splice" or "read"
  std::string error;   ///< set when the input failed: "read: Input/output error"
};

/// Consumes fd to its end. With `use_splice`, a pipe is spliced into /dev/null; anything else
/// (a file, a tty) falls back to read(2) and, when `note` is set, says so there. Bytes are added
/// to `progress` (when set) as they come, for --progress.
sink_report consume(int fd, bool use_splice, std::size_t block_size, std::FILE* note,
                    progress_counter* progress = nullptr);

/// Runs `fizzgen sink` on standard input: report on stderr (unless --quiet), JSON with --json.
/// Returns 0, or 1 when the input failed or the JSON could not be written. Throws std::invalid_argument for bad usage.
int run_sink(sink_command const& s);

}  // namespace fizzgen::cli
