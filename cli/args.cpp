#include "cli/args.hpp"

#include <algorithm>
#include <stdexcept>
#include <string_view>

namespace fizzgen::cli {

namespace {

/// A validator running `parse` on the value: "" when it passes, else its message without the
/// option name it was given (CLI11 adds the option's own).
template <class Parse>
CLI::Validator parsed_by(Parse parse) {
  return CLI::Validator(
      [parse](std::string const& text) -> std::string {
        try {
          parse(text);
          return "";
        } catch (std::invalid_argument const& e) {
          std::string_view what = e.what();
          if (auto const at = what.find(": "); at != std::string_view::npos && what.substr(0, 2) == "--")
            what.remove_prefix(at + 2);
          return std::string(what);
        }
      },
      "");
}

}  // namespace

CLI::Validator size_check(std::uint64_t min, std::uint64_t max, std::string const& range) {
  return parsed_by([=](std::string const& text) {
    std::uint64_t const n = parse_size("--", text);
    if (n < min || n > max) throw std::invalid_argument(range);
  });
}

CLI::Validator size_value(std::uint64_t min, std::uint64_t max, std::string const& range) {
  CLI::Validator const check = size_check(min, max, range);
  return CLI::Validator(
      [check](std::string& text) {
        std::string problem = check(text);
        if (problem.empty()) text = std::to_string(parse_size("--", text));  // valid: it parses
        return problem;
      },
      "");
}

CLI::Validator line_length_check() {
  return parsed_by([](std::string const& text) { parse_line_length(text); });
}

CLI::Validator threads_check() {
  return parsed_by([](std::string const& text) { parse_threads(text); });
}

CLI::Validator positive_check() {
  return parsed_by([](std::string const& text) { parse_positive("--", text); });
}

CLI::Validator rule_check() {
  return parsed_by([](std::string const& text) { parse_rule(text); });
}

CLI::Validator duration_check() {
  return parsed_by([](std::string const& text) {
    if (parse_duration("--", text).count() == 0) throw std::invalid_argument("'" + text + "' must be more than 0");
  });
}

CLI::Validator write_sizes_check(std::string_view option) {
  return parsed_by([option = std::string(option)](std::string const& text) { parse_write_sizes(text, option); });
}

CLI::Option* add_json_option(CLI::App& cmd, std::string& path, std::string const& names, std::string const& help) {
  return cmd.add_option(names, path, help)->type_name("FILE")->expected(0, 1)->default_str("-");
}

std::string with_sizes(std::string_view footer) { return std::string(footer) + "\n\n" + kSizeHelp; }

CLI::Validator choice_check(std::vector<std::string> choices, std::string const& noun) {
  return parsed_by([choices = std::move(choices), noun](std::string const& text) {
    if (std::find(choices.begin(), choices.end(), text) != choices.end()) return;
    std::string list;
    for (std::size_t i = 0; i < choices.size(); ++i)
      list += (i == 0 ? "" : i + 1 == choices.size() ? " or " : ", ") + choices[i];
    throw std::invalid_argument("'" + text + "' is not a " + noun + " (use " + list + ")");
  });
}

}  // namespace fizzgen::cli
