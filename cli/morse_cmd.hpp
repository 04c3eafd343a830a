#pragma once
// `fizzgen morse`: the FizzBuzz stream in Morse (every option of the default stream), and its
// subcommands `encode` and `decode`, which turn any input into Morse and back on every core.

#include <CLI/CLI.hpp>
#include <string>

#include "cli/stream_cmd.hpp"

namespace fizzgen::cli {

/// What `fizzgen morse [encode|decode]` parsed. CLI11 writes into it while parsing, so it must
/// outlive the parse.
struct morse_command {
  CLI::App* app = nullptr;     ///< `morse`: the FizzBuzz stream in Morse
  CLI::App* encode = nullptr;  ///< `morse encode [FILE|-]`
  CLI::App* decode = nullptr;  ///< `morse decode [FILE|-]`
  fizzbuzz_text fizz;
  stream_request stream;
  std::string arch;
  morse_codec_text encode_text, decode_text;
};

/// Registers `morse` (with --from, --to, --rule, --arch and the stream options) and its `encode`
/// and `decode` subcommands on app, writing into m.
void add_morse_command(CLI::App& app, morse_command& m);

/// The first option given to `parent` itself (other than --help, --version, --list-archs): its
/// name, or "" when there is none. A subcommand's options given before it would be ignored.
std::string given_option(CLI::App const& parent);

/// Runs the morse command app parsed (*m.app must be true) and returns the exit status: 0 done, 1
/// output failure or unreadable FILE. Throws std::invalid_argument (one line, exit 2) for bad
/// usage, std::runtime_error (exit 1) for a FILE that cannot be opened. May end the process with
/// SIGPIPE when the reader goes away, as GNU tools do.
int run_morse(morse_command const& m);

}  // namespace fizzgen::cli
