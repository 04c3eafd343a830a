// The classic Morse FizzBuzz kernel for AVX-512 VBMI (the only file compiled with its flags): as
// the plain stream's kernel does (generators/simd/fizzbuzz_avx512vbmi.cpp), every 64 bytes of
// output are one vpermi2b of a 128-byte source, stored as one aligned line.
//
// A number line at d digits is the Morse image (each digit's five symbols and a space) of its
// prefix's high digits, which the block's three prefixes share, the image of the prefix's last two
// digits, the units digit's code and '\n'; every other byte of a block is one of ". - space \n".
// So the source is the high digits' image, the last two digits' images of the block's three
// prefixes and of the next block's first (which the block's last line of output reaches into),
// and the four symbols at bytes 124..127. Up to twelve prefix digits the high image fits bytes
// 0..63 and the last digits' images take bytes 64, 80, 96 and 112; from 13 to 16 digits the high
// image takes up to 84 bytes and the last digits' images of the block's three prefixes are packed
// at 88, 100 and 112: the next block's first line is then longer than the 63 bytes the block's
// last line of output reaches into it, and those bytes are its high digits. The index of each
// output line is read from one linear table at the block's phase. Other widths take the avx512bw
// kernel.

#include <immintrin.h>

// GCC 12's AVX-512 headers trip -W(maybe-)uninitialized on the undefined source operands of
// their unmasked forms (as in fizzbuzz_avx512vbmi.cpp).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "generators/morse_fizzbuzz_kernel.hpp"
#include "generators/morse_fizzbuzz_kernel_impl.hpp"  // digit_code
#include "generators/simd/aligned_lines_impl.hpp"

namespace fizzgen {
namespace {

constexpr std::size_t kMinLen = 2, kMaxLen = 16, kPackedFrom = 13;
constexpr std::uint8_t kDot = 124, kDash = 125, kSpace = 126, kNewline = 127;
constexpr std::size_t kMaxBlock = 96 * kMaxLen + 390;  // 16 number lines of 6d bytes and the words
constexpr std::size_t kMaxWhole = kMaxBlock / 64;
/// The padding before a block, its 30 lines and the next block's first ten, padding after.
constexpr std::size_t kIndexBytes = 64 + 40 * (6 * kMaxLen + 6) + 128;

/// Where the image of the last two digits of prefix s (0..3: the block's three, the next
/// block's first) is in the source; packed, the next block's first is never read (slot 2's).
constexpr std::size_t slot_at(unsigned s, bool packed) noexcept {
  return packed ? 88 + 12 * (s < 3 ? s : 2) : 64 + 16 * s;
}

/// rows[t]: the source's second half without the high digits' image: the images of the last two
/// digits t, t+1, ... (mod 100) in their slots, then ". - space \n" at its last four bytes.
struct lows_table {
  alignas(64) char rows[100][64];
};

constexpr lows_table make_lows(bool packed) noexcept {
  lows_table l{};
  for (unsigned t = 0; t < 100; ++t) {
    char* const half = l.rows[t];
    for (unsigned s = 0; s < (packed ? 3u : 4u); ++s) {
      char* const row = half + (slot_at(s, packed) - 64);
      unsigned const v = (t + s) % 100;
      digit_code(v / 10, row);
      row[5] = ' ';
      digit_code(v % 10, row + 6);
      row[11] = ' ';
    }
    half[60] = '.', half[61] = '-', half[62] = ' ', half[63] = '\n';
  }
  return l;
}

constexpr lows_table kLows = make_lows(false), kPackedLows = make_lows(true);

/// The linear index table of a block at prefix length len (from index + 64; the bytes before and
/// after index '\n'), and the prefix (0..3, 3 the next block's first) of the line of each byte (0
/// for the words).
void build_tables(std::uint8_t* index, std::uint8_t* decade, std::size_t len) noexcept {
  std::memset(index, kNewline, kIndexBytes);
  std::memset(decade, 0, kIndexBytes);
  std::uint8_t* t = index + 64;
  auto symbols = [&](char const* s) {
    for (; *s != '\0'; ++s) *t++ = *s == '.' ? kDot : *s == '-' ? kDash : *s == ' ' ? kSpace : kNewline;
  };
  for (int j = 1; j <= 40; ++j) {
    if (j % 15 == 0) {
      symbols("..-. .. --.. --.. -... ..- --.. --..\n");
    } else if (j % 3 == 0) {
      symbols("..-. .. --.. --..\n");
    } else if (j % 5 == 0) {
      symbols("-... ..- --.. --..\n");
    } else {
      auto const line = static_cast<std::size_t>(t - index);
      auto const s = static_cast<std::uint8_t>(j / 10);
      for (std::size_t i = 0; i < 6 * (len - 2); ++i) *t++ = static_cast<std::uint8_t>(i);
      auto const slot = slot_at(s, len >= kPackedFrom);
      for (std::size_t i = 0; i < 12; ++i) *t++ = static_cast<std::uint8_t>(slot + i);
      char code[6] = {};
      digit_code(static_cast<unsigned>(j % 10), code);
      symbols(code);
      *t++ = kNewline;
      std::memset(decade + line, s, static_cast<std::size_t>(t - index) - line);
    }
  }
}

/// The Morse image of the high digits d[0, n) (each code and a space, up to 84 bytes), zero
/// after, as the source's two halves.
struct image_halves {
  __m512i lo, hi;
};

image_halves high_image(char const* d, std::size_t n) noexcept {
  alignas(64) char image[128] = {};
  for (std::size_t i = 0; i < n; ++i) {
    digit_code(static_cast<unsigned>(d[i] - '0'), image + 6 * i);
    image[6 * i + 5] = ' ';
  }
  return {_mm512_load_si512(image), _mm512_load_si512(image + 64)};
}

/// Writes `blocks` blocks at prefix length len (kMinLen..kMaxLen) from the prefix in prefix[0,
/// len), leaving the next prefix there; W is the block's bytes / 64. `index` and `decade` are
/// build_tables', from the block's first byte.
template <std::size_t W>
char* write_blocks(char* out, char* prefix, std::size_t len, std::uint8_t const* index, std::uint8_t const* decade,
                   std::uint64_t blocks) noexcept {
  std::size_t const block_bytes = 96 * len + 390;
  std::size_t const high_len = len - 2;
  aligned_lines lines(out, block_bytes);
  char high[kMaxLen] = {};
  std::memcpy(high, prefix, high_len);
  unsigned t = static_cast<unsigned>(prefix[len - 2] - '0') * 10u + static_cast<unsigned>(prefix[len - 1] - '0');
  lows_table const& lows = len >= kPackedFrom ? kPackedLows : kLows;
  image_halves image = high_image(high, high_len);
  while (blocks > 0) {
    __m512i const row = _mm512_load_si512(lows.rows[t]);
    __m512i const lo = image.lo, hi = _mm512_or_si512(image.hi, row);
    if (t > 96) {  // the four prefixes cross a hundred: those from 100 - t on take the next high digits
      increment_digits(high, high_len);
      image_halves const up = high_image(high, high_len);
      __m512i const up_hi = _mm512_or_si512(up.hi, row);
      __m512i const later = _mm512_set1_epi8(static_cast<char>(100 - t));
      lines.block<W>([&](std::ptrdiff_t from) {
        __m512i const i = _mm512_loadu_si512(index + from);
        return _mm512_mask_blend_epi8(_mm512_cmpge_epu8_mask(_mm512_loadu_si512(decade + from), later),
                                      _mm512_permutex2var_epi8(lo, i, hi), _mm512_permutex2var_epi8(up.lo, i, up_hi));
      });
      image = up;
      t = t + 3 - 100;
    } else {
      lines.block<W>(
          [&](std::ptrdiff_t from) { return _mm512_permutex2var_epi8(lo, _mm512_loadu_si512(index + from), hi); });
      t += 3;
    }
    --blocks;
  }
  std::memcpy(prefix, high, high_len);
  prefix[len - 2] = static_cast<char>('0' + t / 10);
  prefix[len - 1] = static_cast<char>('0' + t % 10);
  return lines.end();
}

}  // namespace

char* morse_fizzbuzz_blocks_avx512vbmi(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept {
  std::size_t const len = prefix_len;
  if (len < kMinLen || len > kMaxLen) return morse_fizzbuzz_blocks_avx512bw(out, prefix, len, blocks);
  // The tables of the last width this thread wrote (a chunk is one call).
  struct tables {
    std::size_t len = 0;
    alignas(64) std::uint8_t index[kIndexBytes];
    alignas(64) std::uint8_t decade[kIndexBytes];
  };
  thread_local tables cached;
  if (cached.len != len) {
    build_tables(cached.index, cached.decade, len);
    cached.len = len;
  }
  return dispatch_count((96 * len + 390) / 64, std::make_index_sequence<kMaxWhole>{}, [&](auto w) {
    return write_blocks<decltype(w)::value>(out, prefix, len, cached.index + 64, cached.decade + 64, blocks);
  });
}

}  // namespace fizzgen
