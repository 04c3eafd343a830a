#include "generators/morse_encode_pairs.hpp"

#include <string>
#include <string_view>

#include "generators/morse_encode_kernel.hpp"
#include "generators/morse_table.hpp"

namespace fizzgen::morse {
namespace {

/// What eager encoding writes for byte c on its own: its code and a space, the pass byte itself,
/// or nothing (also for '%', which no pair holds).
std::string slot_of(unsigned char c) {
  if (kind_of(c) == byte_kind::pass) return std::string(1, static_cast<char>(c));
  if (c == kUnslotted) return {};
  std::string s(code_of(c));
  if (!s.empty()) s.push_back(' ');
  return s;
}

void fill_pair_tables(encode_pair_tables& t) {
  std::string slots[128];
  for (unsigned c = 0; c < 128; ++c) slots[c] = slot_of(static_cast<unsigned char>(c));
  for (unsigned a = 0; a < 128; ++a) {
    for (unsigned b = 0; b < 128; ++b) {
      std::string both = slots[a];
      if (kind_of(static_cast<unsigned char>(b)) == byte_kind::pass && !both.empty() && both.back() == ' ')
        both.pop_back();  // the pass byte takes back a's space
      both += slots[b];
      std::size_t const i = a | b << 7;
      both.copy(reinterpret_cast<char*>(t.morse[i]), sizeof t.morse[i]);
      t.length[i] = static_cast<std::uint8_t>(both.size());
    }
  }
  for (unsigned c = 0; c < 128; ++c) {
    auto const b = static_cast<unsigned char>(c);
    if (kind_of(b) != byte_kind::drop) t.low_nibble[c & 15] |= static_cast<std::uint8_t>(1u << (c >> 4));
  }
  for (unsigned h = 0; h < 8; ++h) t.high_nibble[h] = static_cast<std::uint8_t>(1u << h);
}

}  // namespace

encode_pair_tables const& pair_tables() noexcept {
  // 272 KiB: built once, in place (not on a thread's stack).
  static encode_pair_tables const& t = []() -> encode_pair_tables const& {
    static encode_pair_tables tables{};
    fill_pair_tables(tables);
    return tables;
  }();
  return t;
}

}  // namespace fizzgen::morse
