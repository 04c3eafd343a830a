// The Morse encoder kernel for AVX2 (the only file compiled with its flags): 32 input bytes a
// block classified with one vpshufb pair, generators/morse_encode_pairs_impl.hpp for the rest.
#include <immintrin.h>

#include <cstdint>

#include "generators/morse_encode_pairs_impl.hpp"

namespace fizzgen::morse {
namespace {

struct avx2_lanes {
  class classifier {
   public:
    explicit classifier(encode_pair_tables const& t) noexcept
        : t_(t),
          low_(_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<__m128i const*>(t.low_nibble)))),
          high_(_mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<__m128i const*>(t.high_nibble)))) {}

    /// The masks of the 32 bytes at s; idx[k] the pair index of bytes 2k and 2k + 1.
    pair_block_masks operator()(unsigned char const* s, std::uint16_t* idx) const noexcept {
      __m256i const x = _mm256_loadu_si256(reinterpret_cast<__m256i const*>(s));
      // vpshufb gives 0 for bytes from 0x80 up: they write nothing.
      __m256i const hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), _mm256_set1_epi8(0x0f));
      __m256i const both = _mm256_and_si256(_mm256_shuffle_epi8(low_, x), _mm256_shuffle_epi8(high_, hi));
      pair_block_masks m;
      m.writes = ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(both, _mm256_setzero_si256())));
      m.pass = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(both, _mm256_set1_epi8(1))));
      m.percent = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(x, _mm256_set1_epi8('%'))));
      // Bytes from 0x80 up become 0x7f, which has no code either; then a | b << 7 per pair.
      __m256i const w = _mm256_min_epu8(x, _mm256_set1_epi8(0x7f));
      __m256i const index = _mm256_or_si256(_mm256_and_si256(w, _mm256_set1_epi16(0x7f)),
                                            _mm256_and_si256(_mm256_srli_epi16(w, 1), _mm256_set1_epi16(0x3f80)));
      _mm256_store_si256(reinterpret_cast<__m256i*>(idx), index);
      return m;
    }

    /// The block's pairs at p (cut as for store_pairs); returns the new end.
    char* store(std::uint16_t const* idx, std::uint32_t cut, char* p) const noexcept {
      return store_pairs(idx, cut, t_, p);
    }

   private:
    encode_pair_tables const& t_;
    __m256i low_, high_;
  };
};

}  // namespace

std::size_t morse_encode_avx2(char const* in, std::size_t n, char* out) noexcept {
  return encode_pairs<avx2_lanes>(in, n, out);
}

}  // namespace fizzgen::morse
