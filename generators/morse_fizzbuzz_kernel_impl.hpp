#pragma once
// Definition of the Morse FizzBuzz block kernel; included only by the per-arch translation units.
// Everything has internal linkage, so no inline function compiled for one instruction set can be
// picked by the linker for another. The copies are plain fixed-size memcpy: each translation unit's
// flags decide how wide the vector moves they become are (16, 32 or 64 bytes).

#include <cstring>

#include "generators/morse_fizzbuzz_kernel.hpp"

namespace fizzgen {
namespace {

/// The five symbols of decimal digit u: 1-5 start with u dots, 6-9 with u-5 dashes, 0 is dashes.
constexpr void digit_code(unsigned u, char* out) noexcept {
  for (unsigned i = 0; i < 5; ++i) {
    if (u == 0)
      out[i] = '-';
    else if (u <= 5)
      out[i] = i < u ? '.' : '-';
    else
      out[i] = i < u - 5 ? '-' : '.';
  }
}

/// A prefix as digits and as its Morse image: digit i's code and a space at bytes [6i, 6i + 6).
struct morse_prefix {
  char digits[kMorseMaxPrefix];
  alignas(64) char image[6 * kMorseMaxPrefix + 64];  // the tail is read (never used) by whole vectors

  void set(char const* d, std::size_t len) noexcept {
    std::memcpy(digits, d, len);
    std::memset(image, ' ', sizeof image);
    for (std::size_t i = 0; i < len; ++i) digit_code(static_cast<unsigned>(d[i] - '0'), image + 6 * i);
  }
  /// this += k (k <= 9); rewrites the codes of the digits that change. The caller guarantees no
  /// carry out of the first digit.
  void add(unsigned k, std::size_t len) noexcept {
    for (std::size_t i = len; k != 0;) {
      --i;
      unsigned const v = static_cast<unsigned>(digits[i] - '0') + k;
      k = v / 10;
      digits[i] = static_cast<char>('0' + v % 10);
      digit_code(v % 10, image + 6 * i);
    }
  }
};

/// A fixed line image, padded so that it can be copied by whole vectors.
struct word_image {
  alignas(16) char bytes[64];
  constexpr explicit word_image(char const* text) noexcept : bytes{} {
    for (std::size_t i = 0; text[i] != '\0'; ++i) bytes[i] = text[i];
  }
};

/// Writes the blocks with V-byte copies; NV is the vectors per prefix image (0: any, in a loop).
template <std::size_t V, std::size_t NV>
char* morse_blocks(char* out, char* prefix, std::size_t len, std::uint64_t blocks) noexcept {
  if (blocks == 0) return out;
  std::size_t const pbytes = 6 * len;
  std::size_t const nv = NV != 0 ? NV : (pbytes + V - 1) / V;
  std::uint64_t units[10];  // the units digit's code and '\n', stored as one 8-byte word
  for (unsigned u = 0; u < 10; ++u) {
    char bytes[8] = {0, 0, 0, 0, 0, '\n', 0, 0};
    digit_code(u, bytes);
    std::memcpy(&units[u], bytes, 8);
  }
  morse_prefix p[3];  // 3k, 3k+1, 3k+2
  p[0].set(prefix, len);
  p[1].set(prefix, len);
  p[1].add(1, len);
  p[2].set(prefix, len);
  p[2].add(2, len);

  // The word lines' images (18, 19 and 37 bytes).
  static constexpr word_image kFizz{"..-. .. --.. --..\n"};
  static constexpr word_image kBuzz{"-... ..- --.. --..\n"};
  static constexpr word_image kFizzBuzz{"..-. .. --.. --.. -... ..- --.. --..\n"};
  char* o = out;
  auto num = [&](morse_prefix const& pre, unsigned u) {
    for (std::size_t v = 0; v < nv; ++v) std::memcpy(o + v * V, pre.image + v * V, V);
    std::memcpy(o + pbytes, &units[u], 8);
    o += pbytes + 6;
  };
  auto fizz = [&] {
    std::memcpy(o, kFizz.bytes, 32);
    o += 18;
  };
  auto buzz = [&] {
    std::memcpy(o, kBuzz.bytes, 32);
    o += 19;
  };
  auto fizzbuzz = [&] {
    std::memcpy(o, kFizzBuzz.bytes, 48);
    o += 37;
  };
  for (std::uint64_t b = 0; b < blocks; ++b) {
    // Advanced before a block, not after: past the last block 3k+4 and 3k+5 may not fit in d-1
    // digits, and they are never needed.
    if (b > 0)
      for (auto& pre : p) pre.add(3, len);
    // 30k+1 .. 30k+10
    num(p[0], 1), num(p[0], 2), fizz(), num(p[0], 4), buzz();
    fizz(), num(p[0], 7), num(p[0], 8), fizz(), buzz();
    // 30k+11 .. 30k+20
    num(p[1], 1), fizz(), num(p[1], 3), num(p[1], 4), fizzbuzz();
    num(p[1], 6), num(p[1], 7), fizz(), num(p[1], 9), buzz();
    // 30k+21 .. 30k+30
    fizz(), num(p[2], 2), num(p[2], 3), fizz(), buzz();
    num(p[2], 6), fizz(), num(p[2], 8), num(p[2], 9), fizzbuzz();
  }
  // The next block starts at 30k+31, prefix 3k+3 = (3k+2) + 1, which keeps d-1 digits: 30k+30 < 10^d.
  p[2].add(1, len);
  std::memcpy(prefix, p[2].digits, len);
  return o;
}

/// Picks the instantiation for the prefix image's size.
template <std::size_t V>
char* morse_blocks_for(char* out, char* prefix, std::size_t len, std::uint64_t blocks) noexcept {
  switch ((6 * len + V - 1) / V) {
    case 1:
      return morse_blocks<V, 1>(out, prefix, len, blocks);
    case 2:
      return morse_blocks<V, 2>(out, prefix, len, blocks);
    case 3:
      return morse_blocks<V, 3>(out, prefix, len, blocks);
    case 4:
      return morse_blocks<V, 4>(out, prefix, len, blocks);
    default:
      return morse_blocks<V, 0>(out, prefix, len, blocks);
  }
}

}  // namespace
}  // namespace fizzgen
