// The Morse decoder kernel for AVX-512 VBMI2 (the only file compiled with its flags): windows of
// 64 input bytes that advance by 56. Every byte q of a window is looked at as the start of a group:
// vpmultishiftqb takes the separator, symbol and dash bits of bytes q..q+7 out of the window's
// masks into byte q, a few byte operations make the packed index (1 << len) | dashes, two
// vpermi2b give its character, and vpcompressb keeps the characters of the group starts and the
// '\n' '\t' '\r' bytes, in input order. No step per group, no branch on the data.
// xsimd 8 has neither vpmultishiftqb, vpermi2b nor vpcompressb, so this is intrinsics.
#include <immintrin.h>

// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on the undefined source operands of
// their unmasked forms (as in fizzbuzz_avx512vbmi.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <cstdint>

#include "generators/morse_decode_kernel.hpp"
#include "generators/morse_table.hpp"

namespace fizzgen::morse {
namespace {

/// Byte j of the result is j + shift (the vpmultishiftqb offsets and the one-byte shift).
__m512i ascending(int shift) noexcept {
  alignas(64) std::int8_t idx[64];
  for (int j = 0; j < 64; ++j) idx[j] = static_cast<std::int8_t>(j + shift);
  return _mm512_load_si512(idx);
}

/// Byte q of the result: bits q..q+7 of mask (bit k of the byte is bit q + k of the mask), for q
/// up to 56; vpmultishiftqb rotates within each qword, and every qword holds the whole mask.
__m512i window_bits(__m512i offsets, __mmask64 mask) noexcept {
  return _mm512_multishift_epi64_epi8(offsets, _mm512_set1_epi64(static_cast<long long>(_cvtmask64_u64(mask))));
}

}  // namespace

std::size_t morse_decode_avx512vbmi2(char const* in, std::size_t n, char* out) noexcept {
  decode_kernel_tables const& t = decode_tables();
  __m512i const class_lo = _mm512_load_si512(t.byte_class), class_hi = _mm512_load_si512(t.byte_class + 64);
  __m512i const char0 = _mm512_load_si512(t.packed), char1 = _mm512_load_si512(t.packed + 64);
  __m512i const char2 = _mm512_load_si512(t.packed + 128), char3 = _mm512_load_si512(t.packed + 192);
  __m512i const offsets = ascending(0), up_one = ascending(-1);
  __m512i const space = _mm512_set1_epi8(' '), one = _mm512_set1_epi8(1), all_ones = _mm512_set1_epi8(-1);
  __m512i const unknown = _mm512_set1_epi8(kUnknownMarker), del = _mm512_set1_epi8(0x7f);
  auto const class_bit = [](std::uint8_t bit) { return _mm512_set1_epi8(static_cast<char>(bit)); };
  __m512i const sep_bit = class_bit(kClassSep), pass_bit = class_bit(kClassPass), sym_bit = class_bit(kClassSym);
  __m512i const dash_bit = class_bit(kClassDash), slash_bit = class_bit(kClassSlash);
  // Window byte j is input byte pos - 1 + j; the window answers for its bytes 1..56 (groups that
  // start there, pass bytes there), which look at most 7 bytes ahead.
  constexpr std::uint64_t kOwn = 0x01fffffffffffffe;
  char* o = out;
  for (std::size_t pos = 0; pos < n; pos += 56) {
    // Bytes outside the input read as spaces: the input's start and end close groups, and a space
    // writes nothing. Masked lanes are never read, so nothing past the input is touched.
    __m512i x;
    if (pos == 0) {  // the window's byte 0 would be before the input: load from it, then shift up
      __mmask64 const valid = n >= 64 ? ~__mmask64{0} : (__mmask64{1} << n) - 1;
      x = _mm512_mask_permutexvar_epi8(space, ~__mmask64{1}, up_one, _mm512_mask_loadu_epi8(space, valid, in));
    } else {
      std::size_t const left = n - pos + 1;
      __mmask64 const valid = left >= 64 ? ~__mmask64{0} : (__mmask64{1} << left) - 1;
      x = _mm512_mask_loadu_epi8(space, valid, in + pos - 1);
    }
    // The input may be a file's mapping, read in place and not yet in any cache: fetch 4 KiB
    // ahead (past the end a prefetch faults on nothing; the address is formed as an integer).
    _mm_prefetch(reinterpret_cast<char const*>(reinterpret_cast<std::uintptr_t>(in) + pos + 4096), _MM_HINT_T0);
    // Bytes from 0x80 up are looked up as 0x7f, which has no class either (vpermi2b reads 7 bits).
    __m512i const cls = _mm512_permutex2var_epi8(class_lo, _mm512_min_epu8(x, del), class_hi);
    __mmask64 const sep = _mm512_test_epi8_mask(cls, sep_bit);
    __mmask64 const pass = _mm512_test_epi8_mask(cls, pass_bit);
    __mmask64 const slash = _mm512_test_epi8_mask(cls, slash_bit);
    __m512i const seps = window_bits(offsets, sep);
    __m512i const syms = window_bits(offsets, _mm512_test_epi8_mask(cls, sym_bit));
    __m512i const dashes = window_bits(offsets, _mm512_test_epi8_mask(cls, dash_bit));
    // The group at q: the run of non-separators from bit 0, ~(seps | -seps) (0xff: 8 or more).
    __m512i const run = _mm512_ternarylogic_epi32(seps, _mm512_sub_epi8(_mm512_setzero_si512(), seps), seps, 0x03);
    // (1 << len) | dashes: run + 1 is 1 << len; ternary logic 0xf8 is A | (B & C).
    __m512i const index = _mm512_ternarylogic_epi32(_mm512_add_epi8(run, one), dashes, run, 0xf8);
    __m512i const chars =
        _mm512_mask_blend_epi8(_mm512_movepi8_mask(index), _mm512_permutex2var_epi8(char0, index, char1),
                               _mm512_permutex2var_epi8(char2, index, char3));
    // Unknown: a byte of the group is no symbol, or the group is 8 bytes or more.
    __mmask64 const bad = _kor_mask64(_mm512_test_epi8_mask(_mm512_andnot_si512(syms, run), all_ones),
                                      _mm512_cmpeq_epi8_mask(run, all_ones));
    std::uint64_t const sep_bits = _cvtmask64_u64(sep);
    // The group "/" alone: a slash followed by a separator (a start, so one came before it too).
    __mmask64 const word_gap = _kand_mask64(slash, _cvtu64_mask64(sep_bits >> 1));
    __m512i const decoded = _mm512_mask_mov_epi8(_mm512_mask_mov_epi8(chars, bad, unknown), word_gap, space);
    std::uint64_t const starts = (sep_bits << 1) & ~sep_bits;
    __mmask64 const keep = _cvtu64_mask64((starts | _cvtmask64_u64(pass)) & kOwn);
    // Register form: vpcompressb to memory is microcoded and far slower on some CPUs.
    _mm512_storeu_si512(o, _mm512_maskz_compress_epi8(keep, _mm512_mask_blend_epi8(pass, decoded, x)));
    o += _mm_popcnt_u64(_cvtmask64_u64(keep));
  }
  return static_cast<std::size_t>(o - out);
}

}  // namespace fizzgen::morse
