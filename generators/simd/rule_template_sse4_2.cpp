// The custom-rules template kernel for sse4_2: the only file compiled with sse4_2's flags. Widths
// with a permutation plan write 16 bytes per store, each a pshufb of a 16-byte window of the
// packed prefixes ORed with the lane's constant bytes; the others take the store plans.
#include <immintrin.h>

#include "generators/rule_permute_impl.hpp"
#include "generators/rule_template_impl.hpp"

namespace fizzgen {
namespace {

struct sse4_2_writer : permute_arrays {
  static constexpr std::size_t kBytes = 16;

  void write(std::uint8_t* dst, std::uint8_t const* prefixes, std::size_t v) const noexcept {
    __m128i const source = _mm_loadu_si128(reinterpret_cast<__m128i const*>(prefixes + window[v]));
    __m128i const bytes = _mm_load_si128(reinterpret_cast<__m128i const*>(index + 16 * v));
    __m128i const constants = _mm_load_si128(reinterpret_cast<__m128i const*>(image + 16 * v));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm_or_si128(_mm_shuffle_epi8(source, bytes), constants));
  }
  void spread(std::uint8_t* dst, std::uint8_t const* high, std::size_t k) const noexcept {
    __m128i const digits = _mm_shuffle_epi8(_mm_load_si128(reinterpret_cast<__m128i const*>(high)),
                                            _mm_load_si128(reinterpret_cast<__m128i const*>(spread_index + 16 * k)));
    __m128i const low = _mm_load_si128(reinterpret_cast<__m128i const*>(spread_low + 16 * k));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(dst), _mm_or_si128(digits, low));
  }
};

}  // namespace

char* rule_template_sse4_2(char* out, rule_template const& t, char const* number, std::size_t width,
                           std::uint64_t phase, std::uint64_t lines, std::byte* scratch) noexcept {
  if (permute_plan const* plan = t.permute_for(width, 16))
    return permute_lines(sse4_2_writer{permute_arrays(*plan)}, out, *plan, number, width, phase, lines, scratch);
  if (rule_template::store_bytes(std::max(width, t.longest_word) + 1, 16) != 16) return nullptr;
  return rule_template_fill{}(xsimd::sse4_2{}, out, t, number, width, phase, lines, scratch);
}

}  // namespace fizzgen
