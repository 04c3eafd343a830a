#include "report/text.hpp"

#include <algorithm>

namespace fizzgen::cli {

std::string wrap(std::string_view text, std::size_t width, std::size_t indent) {
  std::string out;
  std::string const pad(indent, ' ');
  std::size_t column = indent;  // the caller put `indent` characters before the first line
  bool first_line = true;
  auto new_line = [&] {
    out += '\n';
    out += pad;
    column = pad.size();
  };
  while (!text.empty()) {
    if (text.front() == '\n') {  // a line break of the text's own
      new_line();
      first_line = true;
      text.remove_prefix(1);
      continue;
    }
    std::size_t const end = std::min(text.find_first_of(" \n"), text.size());
    std::string_view const word = text.substr(0, end);
    text.remove_prefix(end);
    if (!word.empty()) {
      if (!first_line && column + 1 + word.size() > width)
        new_line();
      else if (!first_line) {
        out += ' ';
        ++column;
      }
      out += word;
      column += word.size();
      first_line = false;
    }
    while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  }
  return out;
}

}  // namespace fizzgen::cli
