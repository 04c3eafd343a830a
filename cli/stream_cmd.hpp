#pragma once
// The options every stream subcommand shares (limits, threads, buffer reuse, measurement: run by
// report/stream_run.hpp), and those of the numbered streams (FizzBuzz and its Morse form).

#include <CLI/CLI.hpp>

#include "streams/commands.hpp"

namespace fizzgen::cli {

/// --count, --bytes, --rate, --duration, --threads, --reuse, --pipe-size, --generate-only,
/// --pipe-only, --no-pin, --stats, --json (alias --stats-json), --progress, and the hidden --chunk-bytes and --buffers.
void add_stream_options(CLI::App& app, stream_request& t);
/// --from, --rule and --to (which excludes --count), then the stream options.
void add_fizzbuzz_options(CLI::App& app, fizzbuzz_text& f, stream_request& t);
/// --from and --rule.
void add_rule_options(CLI::App& app, std::string& from, std::vector<std::string>& rules);
/// --arch NAME, with `help` saying what it forces.
void add_arch_option(CLI::App& app, std::string& name, std::string const& help);

}  // namespace fizzgen::cli
