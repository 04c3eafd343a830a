#pragma once
// `fizzgen check` with --interval's lines while its input arrives and the verdict's summary after
// it; the check itself is verify/'s, which report/ may not include, so the front end passes it in.

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>

namespace fizzgen::cli {

/// Runs the check: adds the bytes that arrive to `received` unless it is null, and returns the
/// check's exit status (0 passed, 1 failed). Throws std::invalid_argument for bad usage.
using check_judge = std::function<int(std::atomic<std::uint64_t>* received)>;

/// Runs `judge` with --interval T's JSON lines on stderr (or --report FILE) while the input
/// arrives and a summary with the verdict ("ok" for status 0, else "failed") after it; without T,
/// judge alone, given no counter. Returns judge's exit status, or 1 after one line on stderr when
/// the lines could not be written. Throws std::invalid_argument and unwritable_report before judge
/// runs (open_interval); an exception from judge ends the lines without a summary and passes on.
int run_check(std::string const& interval, std::string const& report, check_judge const& judge);

}  // namespace fizzgen::cli
