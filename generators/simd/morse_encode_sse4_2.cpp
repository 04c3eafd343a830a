// The Morse encoder kernel for SSE4.2 (the only file compiled with its flags; pshufb is SSSE3):
// 32 input bytes a block classified as two 16-byte halves, generators/morse_encode_pairs_impl.hpp
// for the rest.
#include <immintrin.h>

#include <cstdint>

#include "generators/morse_encode_pairs_impl.hpp"

namespace fizzgen::morse {
namespace {

struct sse4_2_lanes {
  class classifier {
   public:
    explicit classifier(encode_pair_tables const& t) noexcept
        : t_(t),
          low_(_mm_loadu_si128(reinterpret_cast<__m128i const*>(t.low_nibble))),
          high_(_mm_loadu_si128(reinterpret_cast<__m128i const*>(t.high_nibble))) {}

    /// The masks of the 32 bytes at s; idx[k] the pair index of bytes 2k and 2k + 1.
    pair_block_masks operator()(unsigned char const* s, std::uint16_t* idx) const noexcept {
      pair_block_masks m;
      for (unsigned h = 0; h < 2; ++h) {
        __m128i const x = _mm_loadu_si128(reinterpret_cast<__m128i const*>(s + 16 * h));
        // pshufb gives 0 for bytes from 0x80 up: they write nothing.
        __m128i const hi = _mm_and_si128(_mm_srli_epi16(x, 4), _mm_set1_epi8(0x0f));
        __m128i const both = _mm_and_si128(_mm_shuffle_epi8(low_, x), _mm_shuffle_epi8(high_, hi));
        auto bits = [h](__m128i v) { return static_cast<std::uint32_t>(_mm_movemask_epi8(v)) << (16 * h); };
        m.writes |= bits(_mm_cmpeq_epi8(both, _mm_setzero_si128())) ^ (0xffffu << (16 * h));
        m.pass |= bits(_mm_cmpeq_epi8(both, _mm_set1_epi8(1)));
        m.percent |= bits(_mm_cmpeq_epi8(x, _mm_set1_epi8('%')));
        // Bytes from 0x80 up become 0x7f, which has no code either; then a | b << 7 per pair.
        __m128i const w = _mm_min_epu8(x, _mm_set1_epi8(0x7f));
        __m128i const index = _mm_or_si128(_mm_and_si128(w, _mm_set1_epi16(0x7f)),
                                           _mm_and_si128(_mm_srli_epi16(w, 1), _mm_set1_epi16(0x3f80)));
        _mm_store_si128(reinterpret_cast<__m128i*>(idx + 8 * h), index);
      }
      return m;
    }

    /// The block's pairs at p (cut as for store_pairs); returns the new end.
    char* store(std::uint16_t const* idx, std::uint32_t cut, char* p) const noexcept {
      return store_pairs(idx, cut, t_, p);
    }

   private:
    encode_pair_tables const& t_;
    __m128i low_, high_;
  };
};

}  // namespace

std::size_t morse_encode_sse4_2(char const* in, std::size_t n, char* out) noexcept {
  return encode_pairs<sse4_2_lanes>(in, n, out);
}

}  // namespace fizzgen::morse
