#pragma once
// Fast Morse encoding and decoding of byte chunks (docs/morse.md). Pure functions of their
// input, no I/O, no threads: engine/morse_stream runs them on every core and stitches the chunks.
//
// Encoding works "eagerly": every coded byte becomes its code and a space, and a '\n', '\t' or '\r'
// takes back a space written just before it within the same chunk. The docs/morse.md stream is the eager
// chunks stitched by encode_joiner, which holds back each chunk's trailing space until it knows
// whether the next chunk takes it back; so any chunking gives the same bytes.

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace fizzgen {
struct kernel_arch;
}

namespace fizzgen::morse {

/// Bytes the encoder and decoder may store past the end of what they report written (a vector
/// kernel stores whole 64-byte vectors).
inline constexpr std::size_t kStoreSlack = 64;

/// Room encode_eager needs for n input bytes: a code and its space take at most 18 bytes ('%').
constexpr std::size_t encode_bound(std::size_t n) noexcept { return n * 18 + kStoreSlack; }

/// Encodes in eagerly into out (room for encode_bound(in.size()) bytes); returns the bytes written.
std::size_t encode_eager(std::span<char const> in, char* out) noexcept;

/// encode_eager with arch's vector kernel (the same bytes), or the scalar path where it has none.
std::size_t encode_eager(std::span<char const> in, char* out, kernel_arch const& arch) noexcept;

/// The docs/morse.md encoding of a whole stream (eager, minus the final trailing space).
std::string encode(std::string_view in);

/// encode with arch's kernel.
std::string encode(std::string_view in, kernel_arch const& arch);

/// Stitches eagerly encoded chunks, given in stream order, into the docs/morse.md stream.
class encode_joiner {
 public:
  struct piece {
    bool space = false;          ///< write one space before body: held back, not taken back
    std::span<char const> body;  ///< the chunk minus its trailing space, which is held back
  };
  /// What to write for the next chunk's eager encoding. The last space held is never written:
  /// docs/morse.md drops the stream's final trailing space.
  piece next(std::span<char const> eager) noexcept;

 private:
  bool held_ = false;  ///< the last chunk with output ended in a space that was not written
};

/// Room decode needs for n input bytes: a group of at least one byte decodes to one byte.
constexpr std::size_t decode_bound(std::size_t n) noexcept { return n + kStoreSlack; }

/// Decodes in as a whole stream (its last group ends at its end) into out (room for
/// decode_bound(in.size())); returns the bytes written. Groups are maximal runs of bytes other
/// than ' ', '\n', '\t', '\r'; those three pass through, ' ' only separates. A group "/" is a
/// space, a known code its character in upper case, anything else one kUnknownMarker. Chunks cut
/// right after a separator decode independently: the output of the pieces is the output of all.
std::size_t decode(std::span<char const> in, char* out) noexcept;

/// decode with arch's vector kernel (the same bytes), or the scalar path where it has none.
std::size_t decode(std::span<char const> in, char* out, kernel_arch const& arch) noexcept;

/// decode into a string.
std::string decode(std::string_view in);

/// decode into a string with arch's kernel.
std::string decode(std::string_view in, kernel_arch const& arch);

/// True for the bytes that end a code group (a chunk for decode may be cut right after one).
constexpr bool is_separator(char c) noexcept { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

}  // namespace fizzgen::morse
