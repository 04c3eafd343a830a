#pragma once
// The CLI11 side of option values: validators that run the parsers of parse/values.hpp while the
// command line is parsed (so a bad value is refused there, with the parser's words, and the values
// that reach a command are valid), and the JSON report option every command spells the same way.

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "parse/values.hpp"

namespace fizzgen::cli {

// The parsers, as the front end and its tests call them.
using namespace parse;

// ---- CLI11 validators: CLI11 writes "--option: " before each message ----------------------------

/// A size (parse_size) from min to max; outside them, `range` ("must be from 4K to 256M").
CLI::Validator size_check(std::uint64_t min = 0, std::uint64_t max = UINT64_MAX, std::string const& range = "");
/// size_check that also turns the text into its number, so that CLI11 stores the option's value
/// as one (an std::uint64_t, or an std::optional of one for "not given").
CLI::Validator size_value(std::uint64_t min = 0, std::uint64_t max = UINT64_MAX, std::string const& range = "");
/// Adds the option `names` whose value is a size, stored as its number (an std::uint64_t, or an
/// std::optional of one for "not given"); `range` bounds it, `type` is what --help calls it.
template <class T>
CLI::Option* add_size_option(CLI::App& cmd, std::string const& names, T& value, std::string const& help,
                             CLI::Validator const& range = size_value(), std::string const& type = "N") {
  return cmd.add_option(names, value, help)->type_name(type)->transform(range);
}
/// --line-length's L or random:A..B (parse_line_length).
CLI::Validator line_length_check();
/// A thread count (parse_threads).
CLI::Validator threads_check();
/// A positive whole number of any length (parse_positive).
CLI::Validator positive_check();
/// D:WORD (parse_rule).
CLI::Validator rule_check();
/// A duration above 0 (parse_duration).
CLI::Validator duration_check();
/// SIZES of --write-size, or of `option` (parse_write_sizes).
CLI::Validator write_sizes_check(std::string_view option = "--write-size");
/// The report option, spelt the same on every command (report/report.hpp): `names` ("--json", or
/// with an older alias), FILE optional ('-' or none: standard output); `help` says what it holds.
CLI::Option* add_json_option(CLI::App& cmd, std::string& path, std::string const& names, std::string const& help);

/// A --help footer followed by the paragraph on sizes (parse/values.hpp's kSizeHelp).
std::string with_sizes(std::string_view footer);

/// One of `choices`; else "'TEXT' is not a NOUN (use a, b or c)".
CLI::Validator choice_check(std::vector<std::string> choices, std::string const& noun);

}  // namespace fizzgen::cli
