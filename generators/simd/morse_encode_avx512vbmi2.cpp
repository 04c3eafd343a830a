// The Morse encoder kernel for AVX-512 VBMI2 with GFNI (the only file compiled with its flags): 64
// input bytes per block, eight 64-byte vectors of 8-byte slots, each squeezed with vpcompressb.
// xsimd 8 has neither vpermi2b, gf2p8affineqb nor vpcompressb, so this is intrinsics.
#include <cpuid.h>
#include <immintrin.h>

// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on the undefined source operands of
// their unmasked forms (as in fizzbuzz_avx512vbmi.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <bit>
#include <cstdint>

#include "generators/morse_encode_kernel.hpp"

namespace fizzgen::morse {
namespace {

__m512i load_bytes(std::uint8_t const (&bytes)[64]) noexcept { return _mm512_loadu_si512(bytes); }

/// Gathers the planes of slot vectors 2v and 2v + 1, two input bytes to a qword: bytes 7, 6 and 5
/// of qword k are planes 0, 1 and 2 of input byte 16v + k, bytes 3, 2 and 1 those of input byte
/// 16v + 8 + k, from `pair` (planes 0 and 1 of bytes 32h..32h+31 interleaved, h = v / 2) and
/// plane 2 (at index 64 and up). The other bytes are masked to zero.
__m512i gather_index(unsigned v) noexcept {
  std::uint8_t idx[64] = {};
  for (unsigned k = 0; k < 8; ++k) {
    for (unsigned half = 0; half < 2; ++half) {
      unsigned const byte = 16 * v + 8 * half + k, top = 8 * k + 7 - 4 * half;
      idx[top] = static_cast<std::uint8_t>(2 * (byte % 32));
      idx[top - 1] = static_cast<std::uint8_t>(2 * (byte % 32) + 1);
      idx[top - 2] = static_cast<std::uint8_t>(64 + byte);
    }
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

/// What a 64-byte block needs for its stores, worked out a block ahead of them.
struct block_plan {
  enum kind_t { nothing, vectors, scalar } kind = nothing;  ///< scalar: it holds a '%'
  std::uint64_t takes_back = 0;                             ///< its first writing byte is a pass byte
  std::uint64_t ends_in_space = 0;                          ///< its last writing byte is a code byte
  std::uint64_t counts = 0;                                 ///< byte w: the bytes slot vector w keeps
  unsigned count = 0;                                       ///< slot vectors: 8, fewer at the end
  // Set for `vectors` only: zeroing them cost blocks without a code 1.03x.
  __m512i pairs[2] = {_mm512_undefined_epi32(), _mm512_undefined_epi32()}, plane2 = _mm512_undefined_epi32();
};

/// The number of set bits in each byte of x, in that byte.
constexpr std::uint64_t byte_popcounts(std::uint64_t x) noexcept {
  x -= (x >> 1) & 0x5555555555555555;
  x = (x & 0x3333333333333333) + ((x >> 2) & 0x3333333333333333);
  return (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0f;
}

/// Whether the CPU is Intel's: there every 512-bit shuffle, compress and mask-producing compare
/// shares one port (5), and the used-slot masks are better made on port 0 (below).
bool intel_cpu() noexcept {
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid(0, a, b, c, d);
  return b == 0x756e6547 && d == 0x49656e69 && c == 0x6c65746e;  // "GenuineIntel"
}

template <bool MasksOnPort0>
std::size_t encode(char const* in, std::size_t n, char* out) noexcept {
  encode_slot_tables const& t = slot_tables();
  lookup const plane0_of(t.plane[0]), plane1_of(t.plane[1]), plane2_of(t.plane[2]), space_of(t.space),
      length_of(t.length);
  __m512i const gather[4] = {gather_index(0), gather_index(1), gather_index(2), gather_index(3)};
  __m512i const pair_lo = pair_index(0), pair_hi = pair_index(1);
  __mmask64 const planes_bytes = 0xeeeeeeeeeeeeeeee;  // bytes 1, 2, 3, 5, 6, 7 of every qword
  // gf2p8affineqb: bit i of result byte j = parity(matrix byte 7 - i AND x byte j); with x byte j
  // = 1 << j that is bit j of plane i (of the first input byte of the qword; i - 4 of the second):
  // the classes of slot byte j of both, in the two nibbles, a transpose of the 8x8 bits.
  __m512i const bit_j = _mm512_set1_epi64(std::bit_cast<long long>(std::uint64_t{0x8040201008040201}));
  __m512i const class_byte = _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<__m128i const*>(kSlotBytes)));
  __m512i const low_nibble = _mm512_set1_epi8(0x0f), high_nibble = _mm512_set1_epi8(static_cast<char>(0xf0));
  __m512i const unslotted = _mm512_set1_epi8(static_cast<char>(kUnslotted)), del = _mm512_set1_epi8(0x7f);
  __m512i const code_bits = _mm512_set1_epi8(static_cast<char>(~kPassBit)), pass_bit = _mm512_set1_epi8(kPassBit);
  auto const* s = reinterpret_cast<unsigned char const*>(in);
  // A block's lookups and masks, and the offsets of its stores, are one long chain of latencies;
  // planning block i + 1 before block i's vectors are written lets the two overlap (1.15x on
  // text, 1.6x on every byte '\n', in cache).
  auto plan = [&](std::size_t i) noexcept {
    block_plan b;
    std::size_t const len = n - i < 64 ? n - i : 64;
    // The bytes past the end load as 0, which has no code: they use no slot byte.
    std::uint64_t const valid = len == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
    __m512i const x = _mm512_maskz_loadu_epi8(_cvtu64_mask64(valid), s + i);
    // Bytes from 0x80 up become 0x7f, which has no code either: unmasked lookups, one uop fewer
    // than a mask of them (measured 1.06-1.13x on text).
    __m512i const ascii = _mm512_min_epu8(x, del);
    __m512i plane0 = plane0_of(ascii), plane1 = plane1_of(ascii);
    __m512i const space = space_of(ascii);
    // A pass byte takes back the space ending the code of the nearest byte before it that writes
    // anything, if that byte is no pass byte: that code byte loses its trailing space (class 3,
    // in planes 0 and 1).
    std::uint64_t const codes = _mm512_test_epi8_mask(space, code_bits);
    std::uint64_t const pass = _mm512_test_epi8_mask(space, pass_bit);
    std::uint64_t const writes = codes | pass;
    std::uint64_t pass_in_writes = pass, losing = codes & (pass >> 1);
    if (writes != valid) [[unlikely]] {
      // Some bytes write nothing: among the writing bytes (squeezed with pext) a code byte
      // followed by a pass byte. In text every byte writes; this chain of pext and pdep, on the
      // way to every store's address, taken for every block made text 1.2x slower. '%' uses no
      // slot byte either, so its blocks come here too.
      if (_mm512_cmpeq_epi8_mask(x, unslotted) != 0) [[unlikely]] {
        b.kind = block_plan::scalar;
        return b;
      }
      if (writes == 0) return b;  // bytes without a code only
      pass_in_writes = _pext_u64(pass, writes);
      losing = _pdep_u64((pass_in_writes >> 1) & ~pass_in_writes, writes);
    }
    __m512i const lost = _mm512_maskz_mov_epi8(losing, space);
    plane0 = _mm512_andnot_si512(lost, plane0);
    plane1 = _mm512_andnot_si512(lost, plane1);
    b.kind = block_plan::vectors;
    b.takes_back = pass_in_writes & 1;
    // The last writing byte, a code byte, keeps its space (no pass byte after it in this block).
    b.ends_in_space = (codes >> (63 - __builtin_clzll(writes))) & 1;
    // Each slot vector's byte count, one byte each, from the slots' lengths (vpsadbw sums eight)
    // less the spaces lost: known long before the vectors themselves, so the stores' addresses
    // do not wait for the transposes (popcounts of the compress masks: 1.3x slower on text).
    auto const lengths = static_cast<std::uint64_t>(
        _mm_cvtsi128_si64(_mm512_cvtepi64_epi8(_mm512_sad_epu8(length_of(ascii), _mm512_setzero_si512()))));
    b.counts = lengths - byte_popcounts(losing);
    b.pairs[0] = _mm512_permutex2var_epi8(plane0, pair_lo, plane1);
    b.pairs[1] = _mm512_permutex2var_epi8(plane0, pair_hi, plane1);
    b.plane2 = plane2_of(ascii);
    b.count = static_cast<unsigned>((len + 7) / 8);
    return b;
  };
  char* p = out;
  // Whether the output so far ends in a space, kept in a register: reading p[-1] back right after
  // the vector store that wrote it would wait for that store, block after block.
  std::uint64_t space_before = 0;
  block_plan next = n == 0 ? block_plan{} : plan(0);
  for (std::size_t i = 0; i < n; i += 64) {
    block_plan const b = next;
    // The input may be a file's mapping, read in place and not yet in any cache: fetch 64 blocks
    // ahead (past the end a prefetch faults on nothing; the address is formed as an integer).
    _mm_prefetch(reinterpret_cast<char const*>(reinterpret_cast<std::uintptr_t>(in) + i + 4096), _MM_HINT_T0);
    if (i + 64 < n) next = plan(i + 64);
    if (b.kind == block_plan::scalar) [[unlikely]] {
      p = encode_bytes_scalar(s + i, n - i < 64 ? n - i : 64, out, p);
      space_before = p != out && p[-1] == ' ' ? 1 : 0;
      continue;
    }
    if (b.kind == block_plan::nothing) continue;
    // The first writing byte a pass byte: what it takes back was written by an earlier block.
    p -= b.takes_back & space_before;
    space_before = b.ends_in_space;
    // Two slot vectors from each gather and affine step: one permute and one affine step less a
    // vector (1.1x on text, in cache). A last vector past the block's end stores nothing at p.
    for (unsigned v = 0; 2 * v < b.count; ++v) {
      __m512i const matrix = _mm512_maskz_permutex2var_epi8(planes_bytes, b.pairs[v / 2], gather[v], b.plane2);
      // Classes are below 8, so bit 7 of each byte stays clear even shifted, as vpshufb needs.
      __m512i const classes = _mm512_gf2p8affine_epi64_epi8(bit_j, matrix, 0);
      __m512i const second = _mm512_srli_epi16(classes, 4);
      __mmask64 used_first, used_second;
      if constexpr (MasksOnPort0) {
        // A class (0-7, bit 3 clear) plus 7 sets bit 3 exactly when it is not 0: the two classes
        // brought to bits 4-6 (a 16-bit shift brings the neighbour's second class into bits 0-3,
        // below 8, so no carry reaches them), plus 0x70, and vpmovb2m reads bit 7. On a Xeon:
        // 3.50 against 3.38 GB/s for the two vptestmb (morse_bench, medians of 4).
        __m512i const seven_up = _mm512_set1_epi8(0x70);
        used_first = _mm512_movepi8_mask(_mm512_add_epi8(_mm512_slli_epi16(classes, 4), seven_up));
        used_second = _mm512_movepi8_mask(_mm512_add_epi8(classes, seven_up));
      } else {
        used_first = _mm512_test_epi8_mask(classes, low_nibble);
        used_second = _mm512_test_epi8_mask(classes, high_nibble);
      }
      // Register form: vpcompressb to memory is microcoded and far slower on some CPUs.
      _mm512_storeu_si512(p, _mm512_maskz_compress_epi8(used_first, _mm512_shuffle_epi8(class_byte, classes)));
      p += (b.counts >> (16 * v)) & 0xff;
      _mm512_storeu_si512(p, _mm512_maskz_compress_epi8(used_second, _mm512_shuffle_epi8(class_byte, second)));
      p += (b.counts >> (16 * v + 8)) & 0xff;
    }
  }
  return static_cast<std::size_t>(p - out);
}

}  // namespace

std::size_t morse_encode_avx512vbmi2(char const* in, std::size_t n, char* out) noexcept {
  static bool const port0 = intel_cpu();
  return port0 ? encode<true>(in, n, out) : encode<false>(in, n, out);
}

std::size_t morse_encode_avx512vbmi2_masks(bool on_port0, char const* in, std::size_t n, char* out) noexcept {
  return on_port0 ? encode<true>(in, n, out) : encode<false>(in, n, out);
}

}  // namespace fizzgen::morse
