#pragma once
// Definition of fizzbuzz_blocks; included only by the per-arch translation units. Everything here
// is templated on Arch or has internal linkage, so no inline function compiled for one instruction
// set can be picked by the linker for another.

#include <xsimd/xsimd.hpp>

#include <cstring>

#include "generators/fizzbuzz_kernel.hpp"

namespace fizzgen {
namespace {

template <class Arch>
using byte_batch = xsimd::batch<std::uint8_t, Arch>;

template <class Arch>
byte_batch<Arch> load_bytes(std::uint8_t const* p) noexcept {
  return byte_batch<Arch>::load_unaligned(p);
}

/// A line image: `text` at the start, zeros after.
template <class Arch>
byte_batch<Arch> image(char const* text, std::size_t len) noexcept {
  alignas(64) std::uint8_t bytes[byte_batch<Arch>::size] = {};
  std::memcpy(bytes, text, len);
  return load_bytes<Arch>(bytes);
}

/// Adds one to the decimal prefix held in p (digits in bytes [0, len)). `one` has a 1 at byte
/// len-1; a units digit that became ':' carries, which the scalar path resolves.
template <class Arch>
byte_batch<Arch> increment(byte_batch<Arch> p, byte_batch<Arch> one, std::size_t len) noexcept {
  byte_batch<Arch> q = p + one;
  if (!xsimd::any(q == byte_batch<Arch>(static_cast<std::uint8_t>(':')))) [[likely]]
    return q;
  alignas(64) std::uint8_t bytes[byte_batch<Arch>::size];
  p.store_aligned(bytes);
  std::size_t i = len;
  while (bytes[i - 1] == '9') bytes[--i] = '0';  // the caller guarantees the width never grows
  ++bytes[i - 1];
  return load_bytes<Arch>(bytes);
}

}  // namespace

template <class Arch>
char* fizzbuzz_blocks::operator()(Arch, char* out, char* prefix, std::size_t prefix_len,
                                  std::uint64_t blocks) const noexcept {
  using batch = byte_batch<Arch>;
  std::size_t const len = prefix_len;
  std::size_t const line = len + 2;  // prefix, units digit, newline

  batch p0 = image<Arch>(prefix, len);
  alignas(64) std::uint8_t one_bytes[batch::size] = {};
  one_bytes[len - 1] = 1;
  batch const one = load_bytes<Arch>(one_bytes);
  // suffix[u]: units digit u and the newline, right after the prefix.
  batch suffix[10];
  for (int u = 0; u < 10; ++u) {
    alignas(64) std::uint8_t s[batch::size] = {};
    s[len] = static_cast<std::uint8_t>('0' + u);
    s[len + 1] = '\n';
    suffix[u] = load_bytes<Arch>(s);
  }
  batch const fizz = image<Arch>("Fizz\n", 5);
  batch const buzz = image<Arch>("Buzz\n", 5);
  batch const fizzbuzz = image<Arch>("FizzBuzz\n", 9);

  auto* o = reinterpret_cast<std::uint8_t*>(out);
  auto num = [&](batch p, int u) {
    (p | suffix[u]).store_unaligned(o);
    o += line;
  };
  auto word = [&](batch w, std::size_t n) {
    w.store_unaligned(o);
    o += n;
  };
  for (std::uint64_t b = 0; b < blocks; ++b) {
    batch const p1 = increment<Arch>(p0, one, len);
    batch const p2 = increment<Arch>(p1, one, len);
    // 30k+1 .. 30k+10
    num(p0, 1), num(p0, 2), word(fizz, 5), num(p0, 4), word(buzz, 5);
    word(fizz, 5), num(p0, 7), num(p0, 8), word(fizz, 5), word(buzz, 5);
    // 30k+11 .. 30k+20
    num(p1, 1), word(fizz, 5), num(p1, 3), num(p1, 4), word(fizzbuzz, 9);
    num(p1, 6), num(p1, 7), word(fizz, 5), num(p1, 9), word(buzz, 5);
    // 30k+21 .. 30k+30
    word(fizz, 5), num(p2, 2), num(p2, 3), word(fizz, 5), word(buzz, 5);
    num(p2, 6), word(fizz, 5), num(p2, 8), num(p2, 9), word(fizzbuzz, 9);
    p0 = increment<Arch>(p2, one, len);
  }
  alignas(64) std::uint8_t bytes[batch::size];
  p0.store_aligned(bytes);
  std::memcpy(prefix, bytes, len);
  return reinterpret_cast<char*>(o);
}

}  // namespace fizzgen
