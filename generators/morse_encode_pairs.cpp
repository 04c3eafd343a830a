#include "generators/morse_encode_pairs.hpp"

#include <cstring>
#include <string_view>

#include "generators/morse_encode_kernel.hpp"
#include "generators/morse_table.hpp"

namespace fizzgen::morse {
namespace {

/// What eager encoding writes for one byte on its own: its code and a space, the pass byte
/// itself, or nothing (also for '%', which no pair holds). Plain arrays: the tables are built on
/// the first encode, which may be inside a fill that must not allocate.
struct slot {
  char bytes[8] = {};
  std::uint8_t length = 0;
  bool code = false;  ///< ends in a space
  bool pass = false;
};

slot slot_of(unsigned char c) noexcept {
  slot s;
  if (kind_of(c) == byte_kind::pass) {
    s.bytes[0] = static_cast<char>(c);
    s.length = 1;
    s.pass = true;
    return s;
  }
  std::string_view const code = code_of(c);
  if (code.empty() || c == kUnslotted) return s;
  std::memcpy(s.bytes, code.data(), code.size());
  s.bytes[code.size()] = ' ';
  s.length = static_cast<std::uint8_t>(code.size() + 1);
  s.code = true;
  return s;
}

void fill_pair_tables(encode_pair_tables& t) noexcept {
  slot slots[128];
  for (unsigned c = 0; c < 128; ++c) slots[c] = slot_of(static_cast<unsigned char>(c));
  for (unsigned a = 0; a < 128; ++a) {
    for (unsigned b = 0; b < 128; ++b) {
      // The pass byte b takes back a's space.
      unsigned const first = slots[a].length - (slots[a].code && slots[b].pass ? 1u : 0u);
      std::size_t const i = a | b << 7;
      std::memcpy(t.morse[i], slots[a].bytes, first);
      std::memcpy(t.morse[i] + first, slots[b].bytes, slots[b].length);
      t.length[i] = static_cast<std::uint8_t>(first + slots[b].length);
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
