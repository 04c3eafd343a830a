#pragma once
// What the per-arch Morse encoder kernels (generators/simd/morse_encode_<arch>.cpp) share with the
// baseline code: the slot tables and the byte-at-a-time path for the blocks they hand back.
//
// A kernel gives every input byte an 8-byte slot, its code and space (at most 7 symbols and one
// space, so '%' alone does not fit). Slot byte j of byte c is one of 8 classes: 0 unused, then
// '.', '-', ' ', '/', '\n', '\t', '\r' (kSlotBytes), stored as three bit planes: bit j of
// plane[p][c] is bit p of that class. The used bytes of a slot are always a prefix, so the output
// is the slots' used bytes squeezed together.

#include <cstddef>
#include <cstdint>

namespace fizzgen::morse {

/// The byte of each slot class (classes 8-15 never occur: 16 bytes for a vpshufb table).
inline constexpr char kSlotBytes[16] = {0, '.', '-', ' ', '/', '\n', '\t', '\r'};

/// Bit 0 of `space`: a pass byte ('\n' '\t' '\r'); no slot has its space at byte 0.
inline constexpr std::uint8_t kPassBit = 1;

/// Per ASCII byte (bytes >= 0x80 have no code): the three planes of its slot; `space`, the bit
/// of its trailing space (0 for bytes without a code), or kPassBit for '\n' '\t' '\r', which
/// end in none; and `length`, the slot bytes it uses. A byte without a code uses no slot byte;
/// '%' uses none either, a kernel must send the blocks holding one to encode_bytes_scalar.
struct alignas(64) encode_slot_tables {
  std::uint8_t plane[3][128];
  std::uint8_t space[128];
  std::uint8_t length[128];
};

/// The tables, built from generators/morse_table.
encode_slot_tables const& slot_tables() noexcept;

/// The byte that no slot can hold: a kernel encodes the blocks holding it with encode_bytes_scalar.
inline constexpr unsigned char kUnslotted = '%';

/// Encodes n bytes at s a byte at a time, appending at p, as encode_eager does; `begin` is where
/// the chunk's output starts (a pass byte takes back a space only after it). Returns the new end.
char* encode_bytes_scalar(unsigned char const* s, std::size_t n, char const* begin, char* p) noexcept;

/// The kernels: encode_eager of n bytes at in into out (room for encode_bound(n)), bytes written.
std::size_t morse_encode_avx512vbmi2(char const* in, std::size_t n, char* out) noexcept;
/// The same with the used-slot masks made one way or the other (the kernel picks by CPU vendor;
/// tests run both).
std::size_t morse_encode_avx512vbmi2_masks(bool on_port0, char const* in, std::size_t n, char* out) noexcept;

}  // namespace fizzgen::morse
