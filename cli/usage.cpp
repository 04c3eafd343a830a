#include "cli/usage.hpp"

#include <algorithm>
#include <string>

#include "report/text.hpp"

namespace fizzgen::cli {
namespace {

/// Where an example's comment starts ("  fizzgen yes | head -3" then spaces, then the comment).
constexpr std::size_t kCommentColumn = 46;

/// One example line that is too wide: the command, then its comment wrapped at kCommentColumn
/// (on the next line when the command reaches that column).
std::string wrap_example(std::string_view line) {
  auto const gap = line.find("  ", 2);
  if (gap == std::string_view::npos) return std::string(line);
  std::string_view const command = line.substr(0, gap);
  std::string_view comment = line.substr(gap);
  while (!comment.empty() && comment.front() == ' ') comment.remove_prefix(1);
  std::string out(command);
  if (out.size() + 1 >= kCommentColumn) {
    out += '\n';
    out += std::string(kCommentColumn, ' ');
  } else {
    out += std::string(kCommentColumn - out.size(), ' ');
  }
  return out + wrap(comment, kHelpWidth, kCommentColumn);
}

/// A footer as written in the code, fitted to kHelpWidth: consecutive prose lines form a
/// paragraph that is re-flowed; an indented line (an example) keeps its layout when it fits.
std::string reflow_footer(std::string_view footer) {
  std::string out, paragraph;
  auto const flush = [&] {
    if (!paragraph.empty()) out += wrap(paragraph, kHelpWidth) + "\n";
    paragraph.clear();
  };
  while (!footer.empty()) {
    std::size_t const end = std::min(footer.find('\n'), footer.size());
    std::string_view const line = footer.substr(0, end);
    footer.remove_prefix(std::min(end + 1, footer.size()));
    if (line.empty() || line.front() == ' ') {
      flush();
      out += line.size() <= kHelpWidth ? std::string(line) : wrap_example(line);
      out += '\n';
    } else {
      paragraph += (paragraph.empty() ? "" : " ") + std::string(line);
    }
  }
  flush();
  if (!out.empty()) out.pop_back();  // the footer's own last line has no line break
  return out;
}

/// CLI11 indents a description's continuation lines to the name column (format_help): only the
/// rest of the line is the description's.
class formatter final : public CLI::Formatter {
 public:
  std::string make_option_desc(CLI::Option const* opt) const override {
    return wrap(opt->get_description(), kHelpWidth - get_column_width());
  }
  std::string make_subcommand(CLI::App const* sub) const override {
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true),
                             wrap(sub->get_description(), kHelpWidth - get_column_width()), get_column_width());
    return out.str();
  }
  std::string make_footer(CLI::App const* app) const override {
    std::string const footer = app->get_footer();
    return footer.empty() ? footer : reflow_footer(footer) + "\n";
  }
  std::string make_description(CLI::App const* app) const override {
    std::string const desc = app->get_description();
    return desc.empty() ? desc : wrap(desc, kHelpWidth) + "\n";
  }
};

/// What follows the first ": " in text, "" when there is none.
std::string_view after_colon(std::string_view text) {
  auto const colon = text.find(": ");
  return colon == std::string_view::npos ? std::string_view() : text.substr(colon + 2);
}

/// The option a message like "--count: At Most 1 required but received 2" is about.
std::string_view option_of(std::string_view text) { return text.substr(0, text.find(": ")); }

/// An unexpected argument as getopt words it: an option it does not know, or an operand too many.
std::string unexpected(std::string_view arg) {
  std::string const a(arg);
  if (a.starts_with("--")) return "unrecognized option '" + a.substr(0, a.find('=')) + "'";
  if (a.size() >= 2 && a[0] == '-') return "invalid option -- '" + a.substr(1, 1) + "'";
  return "extra operand '" + a + "'";
}

/// By type: the name an error carries is sometimes the app's (ExtrasError inside a subcommand).
template <class T>
bool is(CLI::ParseError const& e) {
  return dynamic_cast<T const*>(&e) != nullptr;
}

}  // namespace

std::shared_ptr<CLI::Formatter> wrapping_formatter() { return std::make_shared<formatter>(); }

std::string plain_message(CLI::ParseError const& e) {
  std::string_view const what = e.what();
  if (is<CLI::ExtrasError>(e)) {
    std::string_view const args = after_colon(what);
    return unexpected(args.substr(0, args.find(' ')));
  }
  if (is<CLI::ArgumentMismatch>(e)) {
    std::string const option(option_of(what));
    if (what.find("At Most") != std::string_view::npos) return option + " may be given only once";
    if (what.find(" missing") != std::string_view::npos) return "option '" + option + "' requires an argument";
    if (what.find("flag override") != std::string_view::npos) return "option '" + option + "' takes no value";
  }
  if (is<CLI::ConversionError>(e) &&
      (what.find("for a flag") != std::string_view::npos || what.find("true/false") != std::string_view::npos))
    return "option '" + std::string(option_of(what)) + "' takes no value";
  if (is<CLI::ExcludesError>(e)) {
    auto const at = what.find(" excludes ");
    if (at != std::string_view::npos)
      return std::string(what.substr(0, at)) + " and " + std::string(what.substr(at + 10)) + " cannot be used together";
  }
  if (is<CLI::RequiresError>(e)) {
    auto const at = what.find(" requires ");
    if (at != std::string_view::npos)
      return std::string(what.substr(0, at)) + " needs " + std::string(what.substr(at + 10)) + " too";
  }
  // Anything else (a validator's own words, a rare CLI11 case): its text, as a sentence part.
  std::string plain(what);
  if (!plain.empty() && plain[0] >= 'A' && plain[0] <= 'Z' && !plain.starts_with("--"))
    plain[0] = static_cast<char>(plain[0] - 'A' + 'a');
  return plain;
}

std::string command_path(CLI::App const& app) {
  std::string path = app.get_name();
  for (CLI::App const* at = &app;;) {
    auto const subs = at->get_subcommands();
    if (subs.empty()) return path;
    at = subs.front();
    path += " " + at->get_name();
  }
}

std::string usage_line(std::string_view what, std::string_view path) {
  return "fizzgen: " + std::string(what) + ". Try '" + std::string(path) + " --help' for more information.";
}

}  // namespace fizzgen::cli
