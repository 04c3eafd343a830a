// The Morse decoder kernel for SSE4.2 (the only file compiled with its flags): 16 input bytes a
// block, generators/morse_decode_lanes_impl.hpp on 16-byte vectors (palignr, pshufb and pblendvb
// are SSSE3 and SSE4.1), the kept bytes squeezed 8 at a time.
#include <immintrin.h>

#include <cstdint>

#include "generators/morse_decode_lanes_impl.hpp"

namespace fizzgen::morse {
namespace {

struct sse4_2_lanes {
  using reg = __m128i;
  static constexpr std::size_t kWidth = 16;

  static reg load(char const* p) noexcept { return _mm_loadu_si128(reinterpret_cast<__m128i const*>(p)); }
  static reg row(std::uint8_t const* p) noexcept { return _mm_loadu_si128(reinterpret_cast<__m128i const*>(p)); }
  static void store(char* p, reg v) noexcept { _mm_storeu_si128(reinterpret_cast<__m128i*>(p), v); }
  static reg splat(char c) noexcept { return _mm_set1_epi8(c); }
  static reg eq(reg a, reg b) noexcept { return _mm_cmpeq_epi8(a, b); }
  static reg or_(reg a, reg b) noexcept { return _mm_or_si128(a, b); }
  static reg and_(reg a, reg b) noexcept { return _mm_and_si128(a, b); }
  static reg adds_u8(reg a, reg b) noexcept { return _mm_adds_epu8(a, b); }
  static reg shuffle(reg table, reg index) noexcept { return _mm_shuffle_epi8(table, index); }
  /// Each byte's high nibble, in its low nibble.
  static reg high_nibbles(reg a) noexcept { return _mm_and_si128(_mm_srli_epi16(a, 4), _mm_set1_epi8(0x0f)); }
  /// Bit 7 - N of each byte at bit 7 (the bits below are not used).
  template <int N>
  static reg shift_left(reg a) noexcept {
    return _mm_slli_epi16(a, N);
  }
  /// b where bit 7 of mask's byte is set, else a.
  static reg blend(reg a, reg b, reg mask) noexcept { return _mm_blendv_epi8(a, b, mask); }
  static std::uint32_t bits(reg a) noexcept { return static_cast<std::uint32_t>(_mm_movemask_epi8(a)); }
  /// One lane: the next block itself is what ahead<K> shifts in.
  static reg join(reg /*cur*/, reg next) noexcept { return next; }
  /// Bytes K..K+15 of cur and next.
  template <int K>
  static reg ahead(reg cur, reg next) noexcept {
    return _mm_alignr_epi8(next, cur, K);
  }
  /// Writes the bytes of v whose bits are set in keep, in order, at o (8 bytes past them may be
  /// written too); returns the new end.
  static char* compact(reg v, std::uint32_t keep, lane_decode_tables const& t, char* o) noexcept {
    unsigned const m0 = keep & 0xffu, m1 = (keep >> 8) & 0xffu;
    __m128i const index = _mm_unpacklo_epi64(_mm_loadl_epi64(reinterpret_cast<__m128i const*>(t.compact[0][m0])),
                                             _mm_loadl_epi64(reinterpret_cast<__m128i const*>(t.compact[1][m1])));
    __m128i const packed = _mm_shuffle_epi8(v, index);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o), packed);
    o += t.count[m0];
    _mm_storeh_pi(reinterpret_cast<__m64*>(o), _mm_castsi128_ps(packed));
    return o + t.count[m1];
  }
};

}  // namespace

std::size_t morse_decode_sse4_2(char const* in, std::size_t n, char* out) noexcept {
  return decode_lanes<sse4_2_lanes>(in, n, out);
}

}  // namespace fizzgen::morse
