#include "generators/morse_table.hpp"

#include <array>

namespace fizzgen::morse {
namespace {

struct entry {
  char c;
  std::string_view code;
};

// The table of docs/morse.md; where codes are shared, the first here is what the decoder gives.
constexpr entry kTable[] = {
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

struct tables {
  std::array<std::string_view, 256> code{};
  std::array<byte_kind, 256> kind{};
  std::array<char, 256> decode{};
};

constexpr tables build() {
  tables t;
  t.decode.fill(kUnknownMarker);
  for (entry const& e : kTable) {
    auto const b = static_cast<unsigned char>(e.c);
    t.code[b] = e.code;
    t.kind[b] = byte_kind::code;
    if (e.c >= 'A' && e.c <= 'Z') {
      t.code[b + 'a' - 'A'] = e.code;
      t.kind[b + 'a' - 'A'] = byte_kind::code;
    }
    // Only single-group codes decode to their character ("& " and "%" read back as several).
    if (e.code.size() > kMaxGroup || e.code.find(' ') != std::string_view::npos) continue;
    unsigned dashes = 0;
    for (std::size_t i = 0; i < e.code.size(); ++i) dashes |= (e.code[i] == '-' ? 1u : 0u) << i;
    unsigned const packed = pack_bits(static_cast<unsigned>(e.code.size()), dashes);
    if (t.decode[packed] == kUnknownMarker) t.decode[packed] = e.c;  // the first entry wins
  }
  t.code[' '] = "/";
  t.kind[' '] = byte_kind::code;
  for (unsigned char b : {'\n', '\t', '\r'}) t.kind[b] = byte_kind::pass;
  return t;
}

constexpr tables kTables = build();

static_assert(kTables.code['%'].size() == kLongestCode);
static_assert(kTables.decode[pack_bits(4, 0b1001)] == 'X');  // -..- : X, not '*'

}  // namespace

byte_kind kind_of(unsigned char b) noexcept { return kTables.kind[b]; }

std::string_view code_of(unsigned char b) noexcept { return kTables.code[b]; }

char decode_packed(unsigned packed) noexcept { return packed < 256 ? kTables.decode[packed] : kUnknownMarker; }

char decode_group(std::string_view group) noexcept {
  if (group.empty() || group.size() > kMaxGroup) return kUnknownMarker;
  unsigned dashes = 0;
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (group[i] != '.' && group[i] != '-') return kUnknownMarker;
    dashes |= (group[i] == '-' ? 1u : 0u) << i;
  }
  return decode_packed(pack_bits(static_cast<unsigned>(group.size()), dashes));
}

}  // namespace fizzgen::morse
