#pragma once
// The Morse table of docs/morse.md (ITU-R M.1677-1 plus the usual extensions) and the
// byte classes the encoder and decoder share. Everything else Morse builds on these few lookups.

#include <cstdint>
#include <string_view>

namespace fizzgen::morse {

/// What encoding does with a byte.
enum class byte_kind : std::uint8_t {
  drop,  ///< no code: produces nothing
  code,  ///< its code and one space (a space byte's code is "/")
  pass,  ///< '\n', '\t', '\r': written as is, taking back the space written just before it
};

/// The kind of byte b.
byte_kind kind_of(unsigned char b) noexcept;

/// The code of byte b: dots and dashes ("/" for a space; "& " and "%" have several groups, as in
/// the table), empty unless kind_of(b) is code. Letters are case-insensitive.
std::string_view code_of(unsigned char b) noexcept;

/// The longest code_of() (that of '%': "----- -..-. -----").
inline constexpr std::size_t kLongestCode = 17;
/// The most symbols in one code group ('$' is "...-..-").
inline constexpr std::size_t kMaxGroup = 7;

/// What the decoder writes for a code group it does not know. '#' has no Morse code, so it can
/// never be the decoding of a known group: a reader can always tell the marker from text.
inline constexpr char kUnknownMarker = '#';

/// A group of 1..kMaxGroup dots and dashes packed as (1 << length) | bits, bit i set when symbol i
/// is a dash: a dense index below 256 for every possible group.
inline constexpr unsigned pack_bits(unsigned length, unsigned dashes) noexcept { return (1u << length) | dashes; }

/// The character a packed group decodes to (upper case), or kUnknownMarker when no table entry
/// has that code. Where codes are shared ('/', '\\' and '|' are all -..-.) the first entry of the
/// table wins: letters, digits, then the ITU punctuation, so -..- is X and -..-. is '/'.
char decode_packed(unsigned packed) noexcept;

/// decode_packed for a group given as text; kUnknownMarker unless it is 1..kMaxGroup of '.' '-'.
char decode_group(std::string_view group) noexcept;

}  // namespace fizzgen::morse
