// The custom-rules template kernel for AVX-512 VBMI: the only file compiled with its flags.
//
// As the classic kernel does, every 64 output bytes of a block are one byte permutation
// (vpermi2b) of a 128-byte source: the 64-byte window of the block's packed prefixes that the
// vector's numbers need, and 64 constant bytes (units digits, newline, the words' letters). So a
// block costs one index load, one permute and one store per 64 bytes, whatever its lines are, and
// a window load where the window moves (every few vectors: the plan keeps a window while it holds
// what the next vectors need). The table of prefixes the windows are read from is written a run
// of a hundred at a time, each 64 bytes of it one vpermb of the run's high digits ORed with the
// last two.
// Widths without a permutation plan take the avx512bw store kernel.

#include <immintrin.h>

// GCC 12's avx512vbmiintrin.h trips -Wmaybe-uninitialized on the undefined source it passes to the
// masked permute builtin behind _mm512_permutexvar_epi8: a known false alarm, silenced for this
// file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "generators/rule_permute_impl.hpp"

namespace fizzgen {

char* rule_template_avx512bw(char* out, rule_template const& t, char const* number, std::size_t width,
                             std::uint64_t phase, std::uint64_t lines, std::byte* scratch) noexcept;

namespace {

struct vbmi_writer : permute_arrays {
  static constexpr std::size_t kBytes = 64;
  __m512i constants;
  /// The window the vector before was permuted from, and where it was: consecutive vectors share
  /// one where the plan could give them one, and a window is an unaligned 64-byte load.
  __m512i source = _mm512_setzero_si512();
  std::uint32_t source_window = UINT32_MAX;

  void begin_block() noexcept { source_window = UINT32_MAX; }
  void write(std::uint8_t* dst, std::uint8_t const* prefixes, std::size_t v) noexcept {
    if (window[v] != source_window) {
      source_window = window[v];
      source = _mm512_loadu_si512(prefixes + source_window);
    }
    __m512i const bytes = _mm512_load_si512(index + 64 * v);
    _mm512_storeu_si512(dst, _mm512_permutex2var_epi8(source, bytes, constants));
  }
  void spread(std::uint8_t* dst, std::uint8_t const* high, std::size_t k) const noexcept {
    __m512i const digits = _mm512_permutexvar_epi8(_mm512_load_si512(spread_index + 64 * k), _mm512_load_si512(high));
    _mm512_storeu_si512(dst, _mm512_or_si512(digits, _mm512_load_si512(spread_low + 64 * k)));
  }
};

}  // namespace

/// See template_fn; lanes of 64 bytes (kernel_arch::rules_lane).
char* rule_template_avx512vbmi(char* out, rule_template const& t, char const* number, std::size_t width,
                               std::uint64_t phase, std::uint64_t lines, std::byte* scratch) noexcept {
  permute_plan const* plan = t.permute_for(width, 64);
  if (plan == nullptr) return rule_template_avx512bw(out, t, number, width, phase, lines, scratch);
  vbmi_writer const writer{permute_arrays(*plan), _mm512_load_si512(plan->constants.bytes)};
  return permute_lines(writer, out, *plan, number, width, phase, lines, scratch);
}

}  // namespace fizzgen
