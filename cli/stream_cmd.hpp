#pragma once
// What every stream subcommand shares: the options for limits, threads, buffer reuse and
// measurement (run by report/stream_run.hpp), the FizzBuzz window and rules, the kernel's arch.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "generators/arch.hpp"
#include "generators/decimal.hpp"
#include "generators/rules.hpp"
#include "report/stream_run.hpp"

namespace fizzgen::cli {

struct fizzbuzz_text {
  std::string from = "1", to;
  std::vector<std::string> rules;
};

/// --count, --bytes, --rate, --duration, --threads, --reuse, --pipe-size, --generate-only,
/// --pipe-only, --no-pin, --stats, --json (alias --stats-json), --progress, and the hidden --chunk-bytes and --buffers.
void add_stream_options(CLI::App& app, stream_request& t);
/// --from and --rule.
void add_rule_options(CLI::App& app, std::string& from, std::vector<std::string>& rules);

/// The rules given, or the classic ones.
rule_set to_rules(std::vector<std::string> const& texts);
/// The arch by name, else by FIZZGEN_ARCH when set, else the best the CPU has; throws
/// std::invalid_argument naming the problem (and --arch or FIZZGEN_ARCH) for an unknown or
/// unavailable one.
kernel_arch const& choose_arch(std::string const& name);

/// The window of lines --from, --to and --count select.
struct window {
  decimal from;
  std::optional<std::uint64_t> lines;  ///< nullopt: unbounded
};
window parse_window(fizzbuzz_text const& f, stream_request const& t);

}  // namespace fizzgen::cli
