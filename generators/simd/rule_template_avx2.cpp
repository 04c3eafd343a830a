// The custom-rules template kernel for avx2: the only file compiled with its flags. Widths with a
// permutation plan write 32 bytes per store: vpshufb shuffles within 16-byte lanes, so each lane
// takes a 16-byte window of the packed prefixes of its own, and ORs in its constant bytes. The
// others take the store plans, whose vector width is rule_template::store_bytes's choice.
#include <immintrin.h>

#include "generators/rule_permute_impl.hpp"
#include "generators/rule_template_impl.hpp"

namespace fizzgen {
namespace {

struct avx2_writer : permute_arrays {
  static constexpr std::size_t kBytes = 32;

  void write(std::uint8_t* dst, std::uint8_t const* prefixes, std::size_t v) const noexcept {
    __m128i const low = _mm_loadu_si128(reinterpret_cast<__m128i const*>(prefixes + window[2 * v]));
    __m128i const high = _mm_loadu_si128(reinterpret_cast<__m128i const*>(prefixes + window[2 * v + 1]));
    __m256i const source = _mm256_inserti128_si256(_mm256_castsi128_si256(low), high, 1);
    __m256i const bytes = _mm256_load_si256(reinterpret_cast<__m256i const*>(index + 32 * v));
    __m256i const constants = _mm256_load_si256(reinterpret_cast<__m256i const*>(image + 32 * v));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst),
                        _mm256_or_si256(_mm256_shuffle_epi8(source, bytes), constants));
  }
  void spread(std::uint8_t* dst, std::uint8_t const* high, std::size_t k) const noexcept {
    __m256i const digits =
        _mm256_shuffle_epi8(_mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<__m128i const*>(high))),
                            _mm256_load_si256(reinterpret_cast<__m256i const*>(spread_index + 32 * k)));
    __m256i const low = _mm256_load_si256(reinterpret_cast<__m256i const*>(spread_low + 32 * k));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst), _mm256_or_si256(digits, low));
  }
};

}  // namespace

char* rule_template_avx2(char* out, rule_template const& t, char const* number, std::size_t width, std::uint64_t phase,
                         std::uint64_t lines, std::byte* scratch) noexcept {
  if (permute_plan const* plan = t.permute_for(width, 16))
    return permute_lines(avx2_writer{permute_arrays(*plan)}, out, *plan, number, width, phase, lines, scratch);
  if (rule_template::store_bytes(std::max(width, t.longest_word) + 1, 32) != 32) return nullptr;
  return rule_template_fill{}(xsimd::avx2{}, out, t, number, width, phase, lines, scratch);
}

}  // namespace fizzgen
