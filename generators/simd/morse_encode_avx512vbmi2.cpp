// The Morse encoder kernel for AVX-512 VBMI2 with GFNI (the only file compiled with its flags): 64
// input bytes per block, eight 64-byte vectors of 8-byte slots, each squeezed with vpcompressb.
// xsimd 8 has neither vpermi2b, gf2p8affineqb nor vpcompressb, so this is intrinsics.
#include <immintrin.h>

// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on the undefined source operands of
// their unmasked forms (as in fizzbuzz_avx512vbmi.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>

#include "generators/morse_encode_kernel.hpp"

namespace fizzgen::morse {
namespace {

/// Gathers the planes of slot vectors 2v and 2v + 1, two input bytes to a qword: bytes 7 to 4 of
/// qword k are planes 0 to 3 of input byte 16v + k, bytes 3 to 0 those of input byte 16v + 8 + k,
/// from the planes of bytes 32h..32h+31 (h = v / 2): 0 and 1 in the first source, 2 and 3 in the
/// second (block_plan::planes).
__m512i gather_index(unsigned v) noexcept {
  std::uint8_t idx[64] = {};
  for (unsigned k = 0; k < 8; ++k) {
    for (unsigned half = 0; half < 2; ++half) {
      unsigned const byte = (16 * v + 8 * half + k) % 32, top = 8 * k + 7 - 4 * half;
      for (unsigned p = 0; p < 4; ++p) idx[top - p] = static_cast<std::uint8_t>(32 * p + byte);
    }
  }
  return _mm512_loadu_si512(idx);
}

struct lookup {
  __m512i lo, hi;
  explicit lookup(std::uint8_t const* table) noexcept
      : lo(_mm512_loadu_si512(table)), hi(_mm512_loadu_si512(table + 64)) {}
  /// table[x] for x below 0x80 (vpermi2b reads 7 index bits).
  __m512i operator()(__m512i x) const noexcept { return _mm512_permutex2var_epi8(lo, x, hi); }
};

/// The gf2p8affineqb matrix that maps the class in bits `from`..`from` + 3 of each byte to its
/// byte (with kSlotBase as the constant): row 7 - i (byte 7 - i) holds the class bits whose basis
/// byte has bit i.
constexpr std::uint64_t class_map(unsigned from) noexcept {
  std::uint64_t m = 0;
  for (unsigned i = 0; i < 8; ++i)
    for (unsigned t = 0; t < 4; ++t)
      if ((kSlotBasis[t] >> i) & 1u) m |= std::uint64_t{1} << (8 * (7 - i) + from + t);
  return m;
}

/// What a 64-byte block needs for its stores, worked out in a first pass over a group of blocks.
struct alignas(64) block_plan {
  /// Byte c: bit j set where slot byte j of input byte c is written. Qword w is then exactly the
  /// compress mask of slot vector w (input bytes 8w..8w+7), and its popcount the bytes it keeps:
  /// read back from memory, a mask costs no port-5 uop and a popcount runs on port 1.
  alignas(64) std::uint64_t used[8];
  /// Planes 0 and 1, then 2 and 3, of input bytes 0-31; then the same of bytes 32-63.
  __m512i planes[4];
  enum kind_t : std::uint8_t { nothing, vectors, scalar } kind;  ///< scalar: it holds a '%'
  std::uint8_t takes_back;                                       ///< its first writing byte is a pass byte
  std::uint8_t ends_in_space;                                    ///< its last writing byte is a code byte
  std::uint8_t count;                                            ///< slot vectors: 8, fewer at the end
};

/// Blocks planned before any of them is stored: the stores of a group then follow each other
/// with nothing to wait for, and the plans (3 KiB) stay in L1. Eight blocks: 1.01-1.08x the
/// speed of sixteen on 256 MiB of text from memory (six turns each), four no better.
inline constexpr std::size_t kGroupBlocks = 8;

/// Writes the slot vectors of a planned block at p; returns the new end. ByShuffle: the classes
/// become bytes by vpshufb (blocks with a '\r'), else by the affine map (on port 0, where the
/// compresses and the gathers keep port 5 busy).
template <bool ByShuffle>
inline char* store_block(block_plan const& b, __m512i const (&gather)[4], char* p) noexcept {
  // gf2p8affineqb: bit i of result byte j = parity(matrix byte 7 - i AND x byte j); with x byte j
  // = 1 << j that is bit j of plane i (of the first input byte of the qword; i - 4 of the second):
  // the classes of slot byte j of both, in the two nibbles, a transpose of the 8x8 bits.
  __m512i const bit_j = _mm512_set1_epi64(std::bit_cast<long long>(std::uint64_t{0x8040201008040201}));
  __m512i const first_map = _mm512_set1_epi64(std::bit_cast<long long>(class_map(0)));
  __m512i const second_map = _mm512_set1_epi64(std::bit_cast<long long>(class_map(4)));
  __m512i const class_byte =
      _mm512_broadcast_i32x4(_mm_loadu_si128(reinterpret_cast<__m128i const*>(kSlotBytes.bytes)));
  __m512i const low_nibble = _mm512_set1_epi8(0x0f);
  // Two slot vectors from each gather and transpose. A last vector past the block's end stores
  // nothing at p.
  for (unsigned v = 0; 2 * v < b.count; ++v) {
    __m512i const matrix = _mm512_permutex2var_epi8(b.planes[v / 2 * 2], gather[v], b.planes[v / 2 * 2 + 1]);
    __m512i const classes = _mm512_gf2p8affine_epi64_epi8(bit_j, matrix, 0);
    __m512i first, second;
    if constexpr (ByShuffle) {
      first = _mm512_shuffle_epi8(class_byte, _mm512_and_si512(classes, low_nibble));
      second = _mm512_shuffle_epi8(class_byte, _mm512_and_si512(_mm512_srli_epi16(classes, 4), low_nibble));
    } else {
      first = _mm512_gf2p8affine_epi64_epi8(classes, first_map, kSlotBase);
      second = _mm512_gf2p8affine_epi64_epi8(classes, second_map, kSlotBase);
    }
    // Register form: vpcompressb to memory is microcoded and far slower on some CPUs.
    _mm512_storeu_si512(p, _mm512_maskz_compress_epi8(_cvtu64_mask64(b.used[2 * v]), first));
    p += std::popcount(b.used[2 * v]);
    _mm512_storeu_si512(p, _mm512_maskz_compress_epi8(_cvtu64_mask64(b.used[2 * v + 1]), second));
    p += std::popcount(b.used[2 * v + 1]);
  }
  return p;
}

std::size_t encode(char const* in, std::size_t n, char* out) noexcept {
  encode_slot_tables const& t = slot_tables();
  lookup const plane0_of(t.plane[0]), plane1_of(t.plane[1]), low_of(t.low), used_of(t.used);
  __m512i const gather[4] = {gather_index(0), gather_index(1), gather_index(2), gather_index(3)};
  __m512i const unslotted = _mm512_set1_epi8(static_cast<char>(kUnslotted)), del = _mm512_set1_epi8(0x7f);
  __m512i const one = _mm512_set1_epi8(1), two = _mm512_set1_epi8(2);
  // gf2p8affineqb's matrix of x >> 1 within each byte (row 7 - i, bit i + 1).
  __m512i const right_shift = _mm512_set1_epi64(std::bit_cast<long long>(std::uint64_t{0x0204081020408000}));
  auto const* s = reinterpret_cast<unsigned char const*>(in);
  // The `low` planes of a group's blocks ORed: kCrMark where one holds a '\r'.
  __m512i cr_marks = _mm512_setzero_si512();
  // Plans a block from the 64 bytes at x_at: `len` of them, the rest zeros (no code).
  //
  // Every step is a vector uop on port 0 or 5, where this kernel spends its time (the stores'
  // compresses, gathers and maps are more than half of it): four lookups, one affine shift, two
  // tests, four lane shuffles. The version that derived `used` from the planes and plane 3 by
  // shifts and masks, compared for '\r' per block and loaded with a mask took 1.12-1.15x as
  // long on text (64 MiB in 256 KiB chunks, in L2).
  auto plan = [&](unsigned char const* x_at, std::size_t len, block_plan& b) noexcept {
    b.kind = block_plan::nothing;
    __m512i const x = _mm512_loadu_si512(x_at);
    // Bytes from 0x80 up become 0x7f, which has no code either: unmasked lookups, one uop fewer
    // than a mask of them (measured 1.06-1.13x on text).
    __m512i const ascii = _mm512_min_epu8(x, del);
    __m512i const plane0 = plane0_of(ascii), plane1 = plane1_of(ascii), low = low_of(ascii);
    __m512i used = used_of(ascii);
    cr_marks = _mm512_or_si512(cr_marks, low);
    // `low` is plane 2 as it stands: its other bits fall on slot bytes the byte does not use
    // (encode_slot_tables); shifted right a bit within each byte, plane 3.
    __m512i const plane2 = low, plane3 = _mm512_gf2p8affine_epi64_epi8(low, right_shift, 0);
    std::uint64_t const writes = _cvtmask64_u64(_mm512_test_epi8_mask(used, one));  // a code or a pass byte
    std::uint64_t const codes = _cvtmask64_u64(_mm512_test_epi8_mask(used, two));   // two slot bytes or more
    std::uint64_t const pass = writes & ~codes;
    // A pass byte takes back the space ending the code of the nearest byte before it that writes
    // anything, if that byte is no pass byte: that code byte loses its trailing space (its last
    // used slot byte).
    std::uint64_t pass_in_writes = pass, losing = codes & (pass >> 1);
    if (writes != ~std::uint64_t{0}) [[unlikely]] {
      // Some bytes write nothing: among the writing bytes (squeezed with pext) a code byte
      // followed by a pass byte. In text every byte writes; this chain of pext and pdep taken for
      // every block made text 1.2x slower. '%' uses no slot byte either, so its blocks come here too.
      if (_mm512_cmpeq_epi8_mask(x, unslotted) != 0) [[unlikely]] {
        b.kind = block_plan::scalar;
        return;
      }
      if (writes == 0) return;  // bytes without a code only
      pass_in_writes = _pext_u64(pass, writes);
      losing = _pdep_u64((pass_in_writes >> 1) & ~pass_in_writes, writes);
    }
    // `used` is 2^length - 1, so without its last slot byte it is used >> 1; a slot byte not
    // used is not stored, whatever its class.
    used = _mm512_mask_gf2p8affine_epi64_epi8(used, _cvtu64_mask64(losing), used, right_shift, 0);
    b.kind = block_plan::vectors;
    b.takes_back = static_cast<std::uint8_t>(pass_in_writes & 1);
    // The last writing byte, a code byte, keeps its space (no pass byte after it in this block).
    b.ends_in_space = static_cast<std::uint8_t>((codes >> (63 - __builtin_clzll(writes))) & 1);
    b.count = static_cast<std::uint8_t>((len + 7) / 8);
    _mm512_store_si512(b.used, used);
    // 128-bit lanes 0-1 and 2-3 of two planes side by side: one vshufi64x2 each.
    b.planes[0] = _mm512_shuffle_i64x2(plane0, plane1, 0x44);
    b.planes[1] = _mm512_shuffle_i64x2(plane2, plane3, 0x44);
    b.planes[2] = _mm512_shuffle_i64x2(plane0, plane1, 0xee);
    b.planes[3] = _mm512_shuffle_i64x2(plane2, plane3, 0xee);
  };
  char* p = out;
  // Whether the output so far ends in a space, kept in a register: reading p[-1] back right after
  // the vector store that wrote it would wait for that store, block after block.
  std::uint64_t space_before = 0;
  block_plan plans[kGroupBlocks];
  for (std::size_t g = 0; g < n; g += 64 * kGroupBlocks) {
    std::size_t const blocks = std::min(kGroupBlocks, (n - g + 63) / 64);
    cr_marks = _mm512_setzero_si512();
    for (std::size_t k = 0; k < blocks; ++k) {
      // The input may be a file's mapping, read in place and not yet in any cache: fetch 64
      // blocks ahead (past the end a prefetch faults on nothing; the address is an integer).
      _mm_prefetch(reinterpret_cast<char const*>(reinterpret_cast<std::uintptr_t>(in) + g + 64 * k + 4096),
                   _MM_HINT_T0);
      std::size_t const i = g + 64 * k;
      if (n - i >= 64) [[likely]] {
        plan(s + i, 64, plans[k]);
      } else {
        alignas(64) unsigned char last[64] = {};
        std::memcpy(last, s + i, n - i);
        plan(last, n - i, plans[k]);
      }
    }
    static_assert(kCrMark == 0x80, "vpmovb2m reads bit 7");
    bool const any_cr = _mm512_movepi8_mask(cr_marks) != 0;
    for (std::size_t k = 0; k < blocks; ++k) {
      block_plan const& b = plans[k];
      if (b.kind == block_plan::scalar) [[unlikely]] {
        std::size_t const i = g + 64 * k;
        p = encode_bytes_scalar(s + i, n - i < 64 ? n - i : 64, out, p);
        space_before = p != out && p[-1] == ' ' ? 1 : 0;
        continue;
      }
      if (b.kind == block_plan::nothing) continue;
      // The first writing byte a pass byte: what it takes back was written by an earlier block.
      p -= b.takes_back & space_before;
      space_before = b.ends_in_space;
      // A whole group one way or the other: in a file with CRLF line ends most blocks, not all,
      // hold a '\r', and a choice per block would be a branch mispredicted as often.
      p = any_cr ? store_block<true>(b, gather, p) : store_block<false>(b, gather, p);
    }
  }
  return static_cast<std::size_t>(p - out);
}

}  // namespace

std::size_t morse_encode_avx512vbmi2(char const* in, std::size_t n, char* out) noexcept { return encode(in, n, out); }

}  // namespace fizzgen::morse
