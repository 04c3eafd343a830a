// The Morse encoder kernel for AVX-512 VBMI2 with GFNI (the only file compiled with its flags): 64
// input bytes per block, eight 64-byte vectors of 8-byte slots, each squeezed with vpcompressb.
// xsimd 8 has neither vpermi2b, gf2p8affineqb nor vpcompressb, so this is intrinsics.
#include <immintrin.h>

// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on the undefined source operands of
// their unmasked forms (as in fizzbuzz_avx512vbmi.cpp).
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

#include <bit>
#include <cstdint>

#include "generators/morse_encode_kernel.hpp"

namespace fizzgen::morse {
namespace {

__m512i load_bytes(std::uint8_t const (&bytes)[64]) noexcept { return _mm512_loadu_si512(bytes); }

/// Gathers the planes of vector w's slots: bytes 7, 6 and 5 of qword k are planes 0, 1 and 2 of
/// input byte 8w + k, from `pair` (planes 0 and 1 of bytes 32h..32h+31 interleaved, h = w / 4) and
/// plane 2 (at index 64 and up). The other bytes are masked to zero.
__m512i gather_index(unsigned w) noexcept {
  std::uint8_t idx[64] = {};
  for (unsigned k = 0; k < 8; ++k) {
    unsigned const byte = 8 * w + k;
    idx[8 * k + 7] = static_cast<std::uint8_t>(2 * (byte % 32));
    idx[8 * k + 6] = static_cast<std::uint8_t>(2 * (byte % 32) + 1);
    idx[8 * k + 5] = static_cast<std::uint8_t>(64 + byte);
  }
  return load_bytes(idx);
}

/// Interleaves planes 0 and 1 (the two sources) of input bytes 32h..32h+31.
__m512i pair_index(unsigned h) noexcept {
  std::uint8_t idx[64];
  for (unsigned m = 0; m < 32; ++m) {
    idx[2 * m] = static_cast<std::uint8_t>(32 * h + m);
    idx[2 * m + 1] = static_cast<std::uint8_t>(64 + 32 * h + m);
  }
  return load_bytes(idx);
}

struct lookup {
  __m512i lo, hi;
  explicit lookup(std::uint8_t const* table) noexcept
      : lo(_mm512_loadu_si512(table)), hi(_mm512_loadu_si512(table + 64)) {}
  /// table[x] for x below 0x80 (vpermi2b reads 7 index bits).
  __m512i operator()(__m512i x) const noexcept { return _mm512_permutex2var_epi8(lo, x, hi); }
};

}  // namespace

std::size_t morse_encode_avx512vbmi2(char const* in, std::size_t n, char* out) noexcept {
  encode_slot_tables const& t = slot_tables();
  lookup const plane0_of(t.plane[0]), plane1_of(t.plane[1]), plane2_of(t.plane[2]), space_of(t.space);
  __m512i const gather[8] = {gather_index(0), gather_index(1), gather_index(2), gather_index(3),
                             gather_index(4), gather_index(5), gather_index(6), gather_index(7)};
  __m512i const pair_lo = pair_index(0), pair_hi = pair_index(1);
  __mmask64 const planes_bytes = 0xe0e0e0e0e0e0e0e0;  // bytes 5, 6, 7 of every qword
  // gf2p8affineqb: bit i of result byte j = parity(matrix byte 7 - i AND x byte j); with x byte j
  // = 1 << j that is bit j of plane i: slot byte j's class, a transpose of the 8x8 bits.
  __m512i const bit_j = _mm512_set1_epi64(std::bit_cast<long long>(std::uint64_t{0x8040201008040201}));
  __m512i const class_byte = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<__m128i const*>(kSlotBytes)));
  __m512i const unslotted = _mm512_set1_epi8(static_cast<char>(kUnslotted)), del = _mm512_set1_epi8(0x7f);
  auto const* s = reinterpret_cast<unsigned char const*>(in);
  char* p = out;
  // Whether the output so far ends in a space, kept in a register: reading p[-1] back right after
  // the vector store that wrote it would wait for that store, block after block.
  std::uint64_t space_before = 0;
  for (std::size_t i = 0; i < n; i += 64) {
    std::size_t const len = n - i < 64 ? n - i : 64;
    // The bytes past the end load as 0, which has no code: they use no slot byte.
    __mmask64 const valid = len == 64 ? ~__mmask64{0} : (__mmask64{1} << len) - 1;
    __m512i const x = _mm512_maskz_loadu_epi8(valid, s + i);
    if (_mm512_cmpeq_epi8_mask(x, unslotted) != 0) [[unlikely]] {
      p = encode_bytes_scalar(s + i, len, out, p);
      space_before = p != out && p[-1] == ' ' ? 1 : 0;
      continue;
    }
    // Bytes from 0x80 up become 0x7f, which has no code either: unmasked lookups, one uop fewer
    // than a mask of them (measured 1.06-1.13x on text).
    __m512i const ascii = _mm512_min_epu8(x, del);
    __m512i plane0 = plane0_of(ascii), plane1 = plane1_of(ascii);
    __m512i const plane2 = plane2_of(ascii), space = space_of(ascii);
    // A pass byte takes back the space ending the code of the nearest byte before it that writes
    // anything, if that byte is no pass byte. Among the writing bytes (squeezed with pext), a code
    // byte followed by a pass byte loses its trailing space: class 3, in planes 0 and 1.
    std::uint64_t const codes = _mm512_test_epi8_mask(space, space);
    std::uint64_t const pass = _mm512_mask_testn_epi8_mask(_mm512_test_epi8_mask(plane2, plane2), space, space);
    std::uint64_t const writes = codes | pass;
    if (writes == 0) continue;  // bytes without a code only
    std::uint64_t const pass_in_writes = _pext_u64(pass, writes);
    std::uint64_t const losing = _pdep_u64((pass_in_writes >> 1) & ~pass_in_writes, writes);
    __m512i const lost = _mm512_maskz_mov_epi8(losing, space);
    plane0 = _mm512_andnot_si512(lost, plane0);
    plane1 = _mm512_andnot_si512(lost, plane1);
    // The first writing byte a pass byte: what it takes back was written by an earlier block.
    p -= pass_in_writes & space_before;
    // The last writing byte, a code byte, keeps its space (no pass byte after it in this block).
    space_before = (codes >> (63 - __builtin_clzll(writes))) & 1;
    __m512i const pairs[2] = {_mm512_permutex2var_epi8(plane0, pair_lo, plane1),
                              _mm512_permutex2var_epi8(plane0, pair_hi, plane1)};
    unsigned const vectors = static_cast<unsigned>((len + 7) / 8);
    for (unsigned w = 0; w < vectors; ++w) {
      __m512i const matrix = _mm512_maskz_permutex2var_epi8(planes_bytes, pairs[w / 4], gather[w], plane2);
      __m512i const classes = _mm512_gf2p8affine_epi64_epi8(bit_j, matrix, 0);
      __mmask64 const used = _mm512_test_epi8_mask(classes, classes);
      // Register form: vpcompressb to memory is microcoded and far slower on some CPUs.
      _mm512_storeu_si512(p, _mm512_maskz_compress_epi8(used, _mm512_shuffle_epi8(class_byte, classes)));
      p += _mm_popcnt_u64(_cvtmask64_u64(used));
    }
  }
  return static_cast<std::size_t>(p - out);
}

}  // namespace fizzgen::morse
