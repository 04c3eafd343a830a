#pragma once
// What the Morse encoder kernels for 16- and 32-byte vectors (generators/simd/morse_encode_<arch>.cpp,
// through generators/morse_encode_pairs_impl.hpp) share with the baseline code: the Morse of every
// pair of ASCII bytes as one 16-byte vector, and the nibble tables that classify bytes.
//
// A pair's Morse is at most 16 bytes (two codes of 7 symbols and their spaces), so one 16-byte
// load and one 16-byte store write it, and the next pair's store overwrites what is past its
// length. '%' (18 bytes) has no pair: a kernel encodes the blocks holding it with
// encode_bytes_scalar.

#include <cstddef>
#include <cstdint>

namespace fizzgen::morse {

/// Pairs of ASCII bytes (a, b), at index a | b << 7.
inline constexpr std::size_t kEncodePairs = std::size_t{1} << 14;

struct alignas(64) encode_pair_tables {
  /// The eager Morse of the pair: a's slot then b's, where a code followed by '\n' '\t' '\r' has
  /// given back its space. A byte without a code (and '%') adds nothing.
  std::uint8_t morse[kEncodePairs][16];
  std::uint8_t length[kEncodePairs];  ///< the bytes of morse[i] that count
  std::uint8_t length_pad[4];         ///< length[i] may be read as 4 bytes (a dword gather)
  /// Bit h of low_nibble[l] is set where byte 16h + l (h < 8) writes something: a code (bits 1-7)
  /// or a pass byte (bit 0, the only bytes with a high nibble of 0 that write).
  std::uint8_t low_nibble[16];
  std::uint8_t high_nibble[16];  ///< high_nibble[h]: 1 << h for h < 8, else 0
};

/// The tables, built from generators/morse_table.
encode_pair_tables const& pair_tables() noexcept;

/// The kernels: encode_eager of n bytes at in into out (room for encode_bound(n)), bytes written.
std::size_t morse_encode_avx2(char const* in, std::size_t n, char* out) noexcept;
std::size_t morse_encode_sse4_2(char const* in, std::size_t n, char* out) noexcept;

}  // namespace fizzgen::morse
