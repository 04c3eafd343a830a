#pragma once
// How usage is shown and refused, as coreutils does it: --help wrapped to 80 columns, and parser
// errors as one plain sentence that points at the --help of the command they belong to.

#include <CLI/CLI.hpp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace fizzgen::cli {

/// The width every --help line fits in.
inline constexpr std::size_t kHelpWidth = 80;

/// CLI11's formatter with option and subcommand descriptions (and the app's own) wrapped so that
/// no line of --help passes kHelpWidth. Set it on the app before adding subcommands: they copy it.
std::shared_ptr<CLI::Formatter> wrapping_formatter();

/// A CLI11 parse error as a plain sentence: "unrecognized option '--bogus'", "option '--count'
/// requires an argument", "--to and --count cannot be used together"...
std::string plain_message(CLI::ParseError const& e);

/// "fizzgen", "fizzgen yes", "fizzgen morse encode": the deepest subcommand selected so far.
std::string command_path(CLI::App const& app);

/// The one line a usage error prints: "fizzgen: WHAT. Try 'PATH --help' for more information."
std::string usage_line(std::string_view what, std::string_view path);

}  // namespace fizzgen::cli
