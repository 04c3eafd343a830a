#pragma once
// What the per-arch Morse decoder kernels (generators/simd/morse_decode_<arch>.cpp) share with the
// baseline code: a byte class table and the character of every packed group.
//
// A kernel looks at every input byte q as the possible start of a group: the class bits of bytes
// q..q+7 (one bit per byte, bit k for byte q + k) give the group's length (the run of non-separators
// from bit 0) and its dashes, so the packed index (1 << len) | dashes is a few byte operations away
// and one 256-entry lookup gives the character, for 64 bytes at once.

#include <cstddef>
#include <cstdint>

namespace fizzgen::morse {

/// Class bits of a byte; bytes from 0x80 up have none (they belong to groups, which are unknown).
inline constexpr std::uint8_t kClassSep = 1;     ///< ' ', '\n', '\t', '\r': ends a group
inline constexpr std::uint8_t kClassPass = 2;    ///< '\n', '\t', '\r': also written out
inline constexpr std::uint8_t kClassSym = 4;     ///< '.' or '-'
inline constexpr std::uint8_t kClassDash = 8;    ///< '-'
inline constexpr std::uint8_t kClassSlash = 16;  ///< '/'

struct alignas(64) decode_kernel_tables {
  std::uint8_t byte_class[128];  ///< the class bits of each ASCII byte
  /// The character of a packed group of 1..7 symbols: (1 << len) | dashes, bit k the group's
  /// symbol k; kUnknownMarker where no code is (and at 0 and 1, which no such group packs to).
  char packed[256];
};

/// The tables, built from generators/morse_table.
decode_kernel_tables const& decode_tables() noexcept;

/// The kernels: decode of n bytes at in into out (room for decode_bound(n)), bytes written.
std::size_t morse_decode_avx512vbmi2(char const* in, std::size_t n, char* out) noexcept;

}  // namespace fizzgen::morse
