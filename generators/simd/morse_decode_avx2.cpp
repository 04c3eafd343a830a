// The Morse decoder kernel for AVX2 (the only file compiled with its flags): 32 input bytes a
// block, generators/morse_decode_lanes_impl.hpp on 32-byte vectors. vpalignr and vpshufb work
// within 16-byte lanes: the bytes ahead come from this block and the next joined by vperm2i128,
// each vpshufb row is in both lanes, and the kept bytes are squeezed 8 at a time.
#include <immintrin.h>

#include <cstdint>

#include "generators/morse_decode_lanes_impl.hpp"

namespace fizzgen::morse {
namespace {

struct avx2_lanes {
  using reg = __m256i;
  static constexpr std::size_t kWidth = 32;

  static reg load(char const* p) noexcept { return _mm256_loadu_si256(reinterpret_cast<__m256i const*>(p)); }
  static reg row(std::uint8_t const* p) noexcept {
    return _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<__m128i const*>(p)));
  }
  static void store(char* p, reg v) noexcept { _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), v); }
  static reg splat(char c) noexcept { return _mm256_set1_epi8(c); }
  static reg eq(reg a, reg b) noexcept { return _mm256_cmpeq_epi8(a, b); }
  static reg or_(reg a, reg b) noexcept { return _mm256_or_si256(a, b); }
  static reg and_(reg a, reg b) noexcept { return _mm256_and_si256(a, b); }
  static reg adds_u8(reg a, reg b) noexcept { return _mm256_adds_epu8(a, b); }
  static reg shuffle(reg table, reg index) noexcept { return _mm256_shuffle_epi8(table, index); }
  /// Each byte's high nibble, in its low nibble.
  static reg high_nibbles(reg a) noexcept { return _mm256_and_si256(_mm256_srli_epi16(a, 4), _mm256_set1_epi8(0x0f)); }
  /// Bit 7 - N of each byte at bit 7 (the bits below are not used).
  template <int N>
  static reg shift_left(reg a) noexcept {
    return _mm256_slli_epi16(a, N);
  }
  /// b where bit 7 of mask's byte is set, else a.
  static reg blend(reg a, reg b, reg mask) noexcept { return _mm256_blendv_epi8(a, b, mask); }
  static std::uint32_t bits(reg a) noexcept { return static_cast<std::uint32_t>(_mm256_movemask_epi8(a)); }
  /// The high lane of cur and the low lane of next: what ahead<K> shifts in.
  static reg join(reg cur, reg next) noexcept { return _mm256_permute2x128_si256(cur, next, 0x21); }
  /// Bytes K..K+31 of cur and next, from join(cur, next).
  template <int K>
  static reg ahead(reg cur, reg joined) noexcept {
    return _mm256_alignr_epi8(joined, cur, K);
  }
  /// Writes the bytes of v whose bits are set in keep, in order, at o (8 bytes past them may be
  /// written too); returns the new end.
  static char* compact(reg v, std::uint32_t keep, lane_decode_tables const& t, char* o) noexcept {
    unsigned const m0 = keep & 0xffu, m1 = (keep >> 8) & 0xffu, m2 = (keep >> 16) & 0xffu, m3 = keep >> 24;
    auto piece = [&t](int half, unsigned m) {
      return _mm_loadl_epi64(reinterpret_cast<__m128i const*>(t.compact[half][m]));
    };
    __m128i const lo = _mm_unpacklo_epi64(piece(0, m0), piece(1, m1));
    __m128i const hi = _mm_unpacklo_epi64(piece(0, m2), piece(1, m3));
    reg const packed = _mm256_shuffle_epi8(v, _mm256_set_m128i(hi, lo));
    __m128i const p0 = _mm256_castsi256_si128(packed), p1 = _mm256_extracti128_si256(packed, 1);
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o), p0);
    o += t.count[m0];
    _mm_storeh_pi(reinterpret_cast<__m64*>(o), _mm_castsi128_ps(p0));
    o += t.count[m1];
    _mm_storel_epi64(reinterpret_cast<__m128i*>(o), p1);
    o += t.count[m2];
    _mm_storeh_pi(reinterpret_cast<__m64*>(o), _mm_castsi128_ps(p1));
    return o + t.count[m3];
  }
};

}  // namespace

std::size_t morse_decode_avx2(char const* in, std::size_t n, char* out) noexcept {
  return decode_lanes<avx2_lanes>(in, n, out);
}

}  // namespace fizzgen::morse
