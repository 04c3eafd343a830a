#pragma once
// What the per-arch Morse encoder kernels (generators/simd/morse_encode_<arch>.cpp) share with the
// baseline code: the slot tables and the byte-at-a-time path for the blocks they hand back.
//
// A kernel gives every input byte an 8-byte slot, its code and space (at most 7 symbols and one
// space, so '%' alone does not fit). Slot byte j of byte c has a 4-bit class, 0 where unused,
// stored as four bit planes: bit j of plane[p][c] is bit p of that class. The used bytes of a slot
// are always a prefix, so the output is the slots' used bytes squeezed together.
//
// The classes are chosen so that an affine map over GF(2) turns a class into its byte: class k
// writes kSlotBase ^ (kSlotBasis[t] for every bit t of k), one gf2p8affineqb for a whole vector.
// Six of the seven bytes a slot holds lie in that space; '\r' does not, so its class (kCrClass)
// maps to a wrong byte there, and blocks holding a '\r' map classes with vpshufb on kSlotBytes.

#include <cstddef>
#include <cstdint>

namespace fizzgen::morse {

inline constexpr std::uint8_t kSlotBase = '#';  ///< what class 0 (unused) maps to: a byte no slot holds
inline constexpr std::uint8_t kSlotBasis[4] = {0x0e, 0x0d, 0x0f, 0x2a};

/// The byte class k maps to under the affine map.
constexpr char affine_slot_byte(unsigned k) noexcept {
  unsigned b = kSlotBase;
  for (unsigned t = 0; t < 4; ++t)
    if ((k >> t) & 1u) b ^= kSlotBasis[t];
  return static_cast<char>(b);
}

/// The class of '\r', one whose affine byte (',') no slot holds.
inline constexpr unsigned kCrClass = 4;

/// The byte of each slot class: the affine map's, but '\r' for kCrClass (a vpshufb table).
inline constexpr auto kSlotBytes = [] {
  struct table {
    char bytes[16];
  } t{};
  for (unsigned k = 0; k < 16; ++k) t.bytes[k] = k == kCrClass ? '\r' : affine_slot_byte(k);
  return t;
}();

/// The class of a slot byte c (one of ". - / \n \t \r" and ' ').
constexpr unsigned slot_class(char c) noexcept {
  unsigned k = 0;
  while (kSlotBytes.bytes[k] != c) ++k;
  return k;
}
static_assert(slot_class('.') != 0 && slot_class('-') != 0 && slot_class(' ') != 0 && slot_class('/') != 0 &&
              slot_class('\n') != 0 && slot_class('\t') != 0 && slot_class('\r') == kCrClass);
static_assert(affine_slot_byte(slot_class('\n')) == '\n' && affine_slot_byte(slot_class('\t')) == '\t' &&
              affine_slot_byte(slot_class('/')) == '/' && affine_slot_byte(slot_class(' ')) == ' ');

/// Per ASCII byte (bytes >= 0x80 have no code), each a 128-byte vpermi2b table: planes 0 and 1 of
/// its slot; `low`, planes 2 and 3, which are set only at slot byte 0 of ' ' ('/'), '\r', '\n'
/// and '\t', as bits 0 and 1, with bit 7 set for '\r' (a slot byte '\r' never uses); and `used`,
/// the slot bytes it writes (2^length - 1). A byte without a code uses no slot byte; '%' uses none
/// either, a kernel must send the blocks holding one to encode_bytes_scalar. The builder checks
/// what lets `low` itself serve as plane 2 and, shifted, as plane 3: its bits other than bit 0
/// (bit 1 and the mark) fall on slot bytes the byte does not use.
struct alignas(64) encode_slot_tables {
  std::uint8_t plane[2][128];
  std::uint8_t low[128];
  std::uint8_t used[128];
};

/// The bit of encode_slot_tables::low that marks '\r'.
inline constexpr std::uint8_t kCrMark = 0x80;

/// The tables, built from generators/morse_table.
encode_slot_tables const& slot_tables() noexcept;

/// The byte that no slot can hold: a kernel encodes the blocks holding it with encode_bytes_scalar.
inline constexpr unsigned char kUnslotted = '%';

/// Encodes n bytes at s a byte at a time, appending at p, as encode_eager does; `begin` is where
/// the chunk's output starts (a pass byte takes back a space only after it). Returns the new end.
char* encode_bytes_scalar(unsigned char const* s, std::size_t n, char const* begin, char* p) noexcept;

/// The kernels: encode_eager of n bytes at in into out (room for encode_bound(n)), bytes written.
std::size_t morse_encode_avx512vbmi2(char const* in, std::size_t n, char* out) noexcept;

}  // namespace fizzgen::morse
