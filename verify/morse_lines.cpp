#include "verify/morse_lines.hpp"

#include <array>
#include <cstdint>
#include <utility>

namespace fizzgen::check {
namespace {

/// The table of docs/morse.md, each character with its own code (the shared codes decode to
/// the characters listed here).
constexpr std::pair<char, char const*> kCodes[] = {
    {'A', ".-"},     {'B', "-..."},   {'C', "-.-."},   {'D', "-.."},     {'E', "."},      {'F', "..-."},
    {'G', "--."},    {'H', "...."},   {'I', ".."},     {'J', ".---"},    {'K', "-.-"},    {'L', ".-.."},
    {'M', "--"},     {'N', "-."},     {'O', "---"},    {'P', ".--."},    {'Q', "--.-"},   {'R', ".-."},
    {'S', "..."},    {'T', "-"},      {'U', "..-"},    {'V', "...-"},    {'W', ".--"},    {'X', "-..-"},
    {'Y', "-.--"},   {'Z', "--.."},   {'0', "-----"},  {'1', ".----"},   {'2', "..---"},  {'3', "...--"},
    {'4', "....-"},  {'5', "....."},  {'6', "-...."},  {'7', "--..."},   {'8', "---.."},  {'9', "----."},
    {'.', ".-.-.-"}, {',', "--..--"}, {'?', "..--.."}, {'\'', ".----."}, {'!', "-.-.--"}, {'/', "-..-."},
    {'(', "-.--."},  {')', "-.--.-"}, {':', "---..."}, {';', "-.-.-."},  {'=', "-...-"},  {'+', ".-.-."},
    {'-', "-....-"}, {'_', "..--.-"}, {'"', ".-..-."}, {'$', "...-..-"}, {'@', ".--.-."}, {'`', ".-----."},
};

/// A group as a number: a leading 1, then a bit per symbol (dash 1). Codes are at most 7 symbols.
constexpr std::size_t kKeys = 256;

struct tables {
  std::array<char, kKeys> by_key{};        // '\0': no code
  std::array<char const*, 256> by_char{};  // nullptr: no code
  tables() {
    for (auto const& [c, code] : kCodes) {
      std::size_t key = 1;
      for (char const* s = code; *s != '\0'; ++s) key = key << 1 | (*s == '-' ? 1U : 0U);
      by_key[key] = c;
      by_char[static_cast<unsigned char>(c)] = code;
    }
  }
};

tables const& table() {
  static tables const t;
  return t;
}

/// One line (without '\n') to text; a group or a space out of place gives '#'.
void decode_line(std::string_view line, std::string& text) {
  tables const& t = table();
  std::size_t i = 0;
  while (i <= line.size()) {
    std::size_t end = i;
    std::size_t key = 1;
    bool valid = true;
    while (end < line.size() && line[end] != ' ') {
      char const c = line[end];
      valid = valid && (c == '.' || c == '-') && key < kKeys / 2;
      key = key << 1 | (c == '-' ? 1U : 0U);
      ++end;
    }
    if (end == i) {
      // An empty group: right only for an empty line.
      if (!line.empty()) text += '#';
    } else if (end == i + 1 && line[i] == '/') {
      text += ' ';
    } else {
      char const c = valid && key < kKeys ? t.by_key[key] : '\0';
      text += c != '\0' ? c : '#';
    }
    if (end >= line.size()) break;
    i = end + 1;
    if (i == line.size()) {  // a space after the last group
      text += '#';
      break;
    }
  }
}

}  // namespace

void decode_morse_lines(std::string_view morse, std::string& text) {
  while (!morse.empty()) {
    std::size_t const nl = morse.find('\n');
    decode_line(morse.substr(0, nl), text);
    if (nl == std::string_view::npos) return;  // a cut-off last line
    text += '\n';
    morse.remove_prefix(nl + 1);
  }
}

std::string encode_morse_line(std::string_view decoded) {
  tables const& t = table();
  std::string out;
  for (char c : decoded) {
    char const* code = c == ' ' ? "/" : t.by_char[static_cast<unsigned char>(c)];
    if (code == nullptr) continue;
    if (!out.empty()) out += ' ';
    out += code;
  }
  return out;
}

}  // namespace fizzgen::check
