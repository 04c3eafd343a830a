#pragma once
// The Morse reference the tests (and bench/morse_bench) judge the fast code by, written the obvious
// way from docs/morse.md: its own copy of the table, one table lookup and one append per input byte to
// encode, one group at a time through a map to decode. Nothing from generators/, so a bug there
// cannot hide here.

#include <array>
#include <cstddef>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace morse_oracle {

/// The table of docs/morse.md; where codes are shared, the first is what decoding gives.
inline std::vector<std::pair<char, std::string>> const& table() {
  static std::vector<std::pair<char, std::string>> const t{
      {'A', ".-"},     {'B', "-..."},   {'C', "-.-."},    {'D', "-.."},    {'E', "."},
      {'F', "..-."},   {'G', "--."},    {'H', "...."},    {'I', ".."},     {'J', ".---"},
      {'K', "-.-"},    {'L', ".-.."},   {'M', "--"},      {'N', "-."},     {'O', "---"},
      {'P', ".--."},   {'Q', "--.-"},   {'R', ".-."},     {'S', "..."},    {'T', "-"},
      {'U', "..-"},    {'V', "...-"},   {'W', ".--"},     {'X', "-..-"},   {'Y', "-.--"},
      {'Z', "--.."},   {'0', "-----"},  {'1', ".----"},   {'2', "..---"},  {'3', "...--"},
      {'4', "....-"},  {'5', "....."},  {'6', "-...."},   {'7', "--..."},  {'8', "---.."},
      {'9', "----."},  {'.', ".-.-.-"}, {',', "--..--"},  {'?', "..--.."}, {'\'', ".----."},
      {'!', "-.-.--"}, {'/', "-..-."},  {'(', "-.--."},   {')', "-.--.-"}, {'&', ". ..."},
      {':', "---..."}, {';', "-.-.-."}, {'=', "-...-"},   {'+', ".-.-."},  {'-', "-....-"},
      {'_', "..--.-"}, {'"', ".-..-."}, {'$', "...-..-"}, {'@', ".--.-."}, {'%', "----- -..-. -----"},
      {'*', "-..-"},   {'<', "-.--."},  {'>', "-.--.-"},  {'[', "-.--."},  {']', "-.--.-"},
      {'{', "-.--."},  {'}', "-.--.-"}, {'\\', "-..-."},  {'|', "-..-."},  {'`', ".-----."},
  };
  return t;
}

/// The code of every byte followed by one space ("" when it has no code), letters
/// case-insensitive, space "/ ".
inline std::array<std::string, 256> const& codes() {
  static std::array<std::string, 256> const c = [] {
    std::array<std::string, 256> a;
    for (auto const& [ch, code] : table()) {
      a[static_cast<unsigned char>(ch)] = code + ' ';
      if (ch >= 'A' && ch <= 'Z') a[static_cast<unsigned char>(ch - 'A' + 'a')] = code + ' ';
    }
    a[' '] = "/ ";
    return a;
  }();
  return c;
}

inline bool passes(char c) { return c == '\n' || c == '\t' || c == '\r'; }

/// docs/morse.md's encoding: per byte, one table lookup and one append.
inline std::string encode(std::string_view in) {
  auto const& code = codes();
  std::string out;
  for (char c : in) {
    if (passes(c)) {
      if (!out.empty() && out.back() == ' ') out.pop_back();  // take back the space before it
      out += c;
      continue;
    }
    out += code[static_cast<unsigned char>(c)];
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();  // the stream's last trailing space
  return out;
}

/// Group -> character, the first table entry winning where codes are shared.
inline std::map<std::string, char> const& groups() {
  static std::map<std::string, char> const g = [] {
    std::map<std::string, char> m;
    for (auto const& [ch, code] : table())
      if (code.find(' ') == std::string::npos) m.emplace(code, ch);  // emplace keeps the first
    return m;
  }();
  return g;
}

/// The decoder's marker for an unknown group.
inline constexpr char kMarker = '#';

/// docs/morse.md's decoding: groups are runs of bytes other than ' ', '\n', '\t', '\r'; those three
/// end a group, and all but ' ' are copied. "/" is a space; an unknown group is kMarker.
inline std::string decode(std::string_view in) {
  std::string out, group;
  auto flush = [&] {
    if (group.empty()) return;
    if (group == "/") {
      out += ' ';
    } else {
      auto const it = groups().find(group);
      out += it == groups().end() ? kMarker : it->second;
    }
    group.clear();
  };
  for (char c : in) {
    if (c == ' ' || passes(c)) {
      flush();
      if (c != ' ') out += c;
    } else {
      group += c;
    }
  }
  flush();
  return out;
}

/// What decode(encode(text)) must give when every character of text reads back as itself: text
/// in upper case, minus the characters without a code.
inline std::string upper_without_uncodable(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (!passes(c) && codes()[static_cast<unsigned char>(c)].empty()) continue;
    out += c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
  }
  return out;
}

}  // namespace morse_oracle
