#pragma once
// The Morse encoder kernel for 16- and 32-byte vectors, as one algorithm over a lane type L that a
// per-arch translation unit supplies (generators/simd/morse_encode_{avx2,sse4_2}.cpp). Everything
// here is a template or has internal linkage, so no inline function compiled for one instruction
// set can be picked by the linker for another.
//
// A block is 32 input bytes. The vectors classify them (writes something, is a pass byte, is '%')
// into bit masks and turn each pair of bytes into its index in encode_pair_tables; the masks give
// the code bytes that lose their space to a following pass byte. Then each pair is one 16-byte
// load of its Morse and one 16-byte store, the offsets one addition each: no branch per byte.
// Blocks that write nothing cost the classification only, blocks of pass bytes only are copied.

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <emmintrin.h>

#include "generators/morse_encode_kernel.hpp"
#include "generators/morse_encode_pairs.hpp"

namespace fizzgen::morse {
namespace {

inline constexpr std::size_t kPairBlock = 32;

/// Bit i describes byte i of a block.
struct pair_block_masks {
  std::uint32_t writes = 0;   ///< a code or a pass byte
  std::uint32_t pass = 0;     ///< '\n' '\t' '\r'
  std::uint32_t percent = 0;  ///< '%', which no pair holds
};

/// The code bytes whose next writing byte in the block is a pass byte: pass bits carried down
/// through the runs of bytes that write nothing, 1, 2, 4, 8 and 16 places at a time.
inline std::uint32_t losing_spaces(std::uint32_t writes, std::uint32_t pass) noexcept {
  std::uint32_t const codes = writes & ~pass;
  if (writes == ~std::uint32_t{0}) return codes & (pass >> 1);
  std::uint32_t reach = pass, quiet = ~writes;
  reach |= quiet & (reach >> 1);
  quiet &= quiet >> 1;
  reach |= quiet & (reach >> 2);
  quiet &= quiet >> 2;
  reach |= quiet & (reach >> 4);
  quiet &= quiet >> 4;
  reach |= quiet & (reach >> 8);
  quiet &= quiet >> 8;
  reach |= quiet & (reach >> 16);
  return codes & (reach >> 1);
}

/// Writes the 16 bytes of a pair's Morse at p.
inline void store_pair(char* p, std::uint8_t const* morse) noexcept {
  _mm_storeu_si128(reinterpret_cast<__m128i*>(p), _mm_load_si128(reinterpret_cast<__m128i const*>(morse)));
}

/// Writes the 16 pairs of a block whose pair indices are idx; `cut` has bit 2k set where pair k
/// ends in a space a later pass byte takes back. Returns the new end. One addition per pair on
/// the way from block to block: for lanes without a gather.
inline char* store_pairs(std::uint16_t const* idx, std::uint32_t cut, encode_pair_tables const& t, char* p) noexcept {
  for (unsigned k = 0; k < kPairBlock / 2; ++k) {
    std::uint16_t const i = idx[k];
    store_pair(p, t.morse[i]);
    p += t.length[i] - ((cut >> (2 * k)) & 1u);
  }
  return p;
}

/// Where the pairs of a block come from (byte offsets into encode_pair_tables::morse) and go to
/// (offsets from the block's first output byte), and the bytes the block writes.
struct pair_places {
  alignas(32) std::uint32_t from[kPairBlock / 2];
  alignas(32) std::uint32_t to[kPairBlock / 2];
  std::uint32_t total = 0;
};

/// Writes the pairs as placed: the block's offsets do not wait for the output pointer, so only
/// one addition links a block to the next.
inline char* store_placed(pair_places const& at, encode_pair_tables const& t, char* p) noexcept {
  auto const* morse = &t.morse[0][0];
  for (unsigned k = 0; k < kPairBlock / 2; ++k) store_pair(p + at.to[k], morse + at.from[k]);
  return p + at.total;
}

template <class L>
std::size_t encode_pairs(char const* in, std::size_t n, char* out) noexcept {
  encode_pair_tables const& t = pair_tables();
  typename L::classifier const classify(t);
  auto const* s = reinterpret_cast<unsigned char const*>(in);
  char* p = out;
  bool last_is_code = false;  // the last byte that wrote, in an earlier block, was a code byte
  std::size_t i = 0;
  for (; i + kPairBlock <= n; i += kPairBlock) {
    alignas(32) std::uint16_t idx[kPairBlock / 2];
    pair_block_masks const m = classify(s + i, idx);
    // The indices are read back from memory, one load each, not extracted from the vector.
    asm("" : : "r"(idx) : "memory");
    if (m.writes == 0) continue;
    std::uint32_t const codes = m.writes & ~m.pass;
    bool const ends_in_code = ((codes >> (31 - std::countl_zero(m.writes))) & 1u) != 0;
    if (m.percent != 0) [[unlikely]] {
      p = encode_bytes_scalar(s + i, kPairBlock, out, p);  // it takes back spaces itself
      last_is_code = ends_in_code;
      continue;
    }
    // A pass byte first takes back the space ending an earlier block.
    std::uint32_t const first = m.writes & (~m.writes + 1);
    p -= static_cast<std::size_t>(last_is_code && (first & m.pass) != 0);
    last_is_code = ends_in_code;
    if (m.pass == ~std::uint32_t{0}) {
      std::memcpy(p, s + i, kPairBlock);
      p += kPairBlock;
      continue;
    }
    // A code byte followed by a pass byte in its own pair gave its space back in the table.
    std::uint32_t const inside = codes & (m.pass >> 1) & 0x55555555u;
    std::uint32_t const across = losing_spaces(m.writes, m.pass) & ~inside;
    p = classify.store(idx, (across | (across >> 1)) & 0x55555555u, p);
  }
  p = encode_bytes_scalar(s + i, n - i, out, p);
  return static_cast<std::size_t>(p - out);
}

}  // namespace
}  // namespace fizzgen::morse
