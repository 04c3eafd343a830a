#pragma once
// What the Morse decoder kernels for 16- and 32-byte vectors (generators/simd/morse_decode_<arch>.cpp,
// through generators/morse_decode_lanes_impl.hpp) share with the baseline code: the character table
// cut into vpshufb rows, and the tables that squeeze the kept bytes of 8-byte pieces together.
//
// Every input byte q is looked at as the possible start of a group. Its packed index
// (1 << len) | dashes (generators/morse_table.hpp) is built from the classes of bytes q+7 down to
// q, one vector step each, with saturating byte arithmetic so that a group of 8 or more bytes, or
// one holding a byte that is no symbol, ends at an index that is no code.

#include <cstddef>
#include <cstdint>

namespace fizzgen::morse {

/// The packed indices below 128 (groups of up to 6 symbols), as 8 rows of 16 for vpshufb.
inline constexpr std::size_t kLaneRows = 8;
/// Room for the codes of 7 symbols ('$' ...-..-, '`' .-----.), compared one by one.
inline constexpr std::size_t kLongCodes = 2;

struct alignas(64) lane_decode_tables {
  std::uint8_t row[kLaneRows][16];  ///< row[h][l]: the character of packed index 16h + l
  /// compact[m]: the positions of m's set bits, ascending (then zeros); half[1] the same plus 8,
  /// for the second 8-byte piece of a 16-byte lane.
  std::uint8_t compact[2][256][8];
  std::uint8_t count[256];              ///< the set bits of m
  std::uint8_t long_index[kLongCodes];  ///< packed indices >= 128 that are a code (0: unused)
  std::uint8_t long_char[kLongCodes];   ///< their characters
  std::uint8_t long_codes_missing = 0;  ///< codes of 7 symbols beyond kLongCodes (must be 0)
};

/// The tables, built from generators/morse_decode_kernel.hpp's packed characters.
lane_decode_tables const& lane_tables() noexcept;

/// The kernels: decode of n bytes at in into out (room for decode_bound(n)), bytes written.
std::size_t morse_decode_avx2(char const* in, std::size_t n, char* out) noexcept;
std::size_t morse_decode_sse4_2(char const* in, std::size_t n, char* out) noexcept;

}  // namespace fizzgen::morse
