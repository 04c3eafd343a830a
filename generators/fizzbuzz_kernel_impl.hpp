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

/// A line image of up to N vectors: N batches, byte i of the image in batch i / size.
template <class Arch, std::size_t N>
struct wide {
  byte_batch<Arch> v[N];
};

template <class Arch, std::size_t N>
wide<Arch, N> wide_image(std::uint8_t const* bytes) noexcept {
  wide<Arch, N> w;
  for (std::size_t j = 0; j < N; ++j) w.v[j] = load_bytes<Arch>(bytes + j * byte_batch<Arch>::size);
  return w;
}

/// Adds one to the decimal prefix held in p (digits in bytes [0, len)). `one` has a 1 at byte
/// len-1, which is in batch U; a units digit that became ':' carries, which the scalar path
/// resolves.
template <class Arch, std::size_t N, std::size_t U>
wide<Arch, N> increment(wide<Arch, N> p, byte_batch<Arch> one, std::size_t len) noexcept {
  constexpr std::size_t size = byte_batch<Arch>::size;
  wide<Arch, N> q = p;
  q.v[U] = p.v[U] + one;
  if (!xsimd::any(q.v[U] == byte_batch<Arch>(static_cast<std::uint8_t>(':')))) [[likely]]
    return q;
  alignas(64) std::uint8_t bytes[N * size];
  for (std::size_t j = 0; j < N; ++j) p.v[j].store_aligned(bytes + j * size);
  std::size_t i = len;
  while (bytes[i - 1] == '9') bytes[--i] = '0';  // the caller guarantees the width never grows
  ++bytes[i - 1];
  return wide_image<Arch, N>(bytes);
}

/// The kernel for lines of prefix, units digit and newline spanning N vectors, the prefix's
/// units digit in vector U.
template <class Arch, std::size_t N, std::size_t U>
char* blocks_of(char* out, char* prefix, std::size_t len, std::uint64_t blocks) noexcept {
  using batch = byte_batch<Arch>;
  constexpr std::size_t size = batch::size;
  std::size_t const line = len + 2;  // prefix, units digit, newline

  alignas(64) std::uint8_t bytes[N * size] = {};
  std::memcpy(bytes, prefix, len);
  wide<Arch, N> p0 = wide_image<Arch, N>(bytes);
  alignas(64) std::uint8_t one_bytes[N * size] = {};
  one_bytes[len - 1] = 1;
  batch const one = load_bytes<Arch>(one_bytes + U * size);
  // suffix[u]: units digit u and the newline, right after the prefix.
  wide<Arch, N> suffix[10];
  for (int u = 0; u < 10; ++u) {
    alignas(64) std::uint8_t s[N * size] = {};
    s[len] = static_cast<std::uint8_t>('0' + u);
    s[len + 1] = '\n';
    suffix[u] = wide_image<Arch, N>(s);
  }
  batch const fizz = image<Arch>("Fizz\n", 5);
  batch const buzz = image<Arch>("Buzz\n", 5);
  batch const fizzbuzz = image<Arch>("FizzBuzz\n", 9);

  auto* o = reinterpret_cast<std::uint8_t*>(out);
  auto num = [&](wide<Arch, N> const& p, int u) {
    for (std::size_t j = 0; j < N; ++j) (p.v[j] | suffix[u].v[j]).store_unaligned(o + j * size);
    o += line;
  };
  // A word line is at most 9 bytes: one 16-byte store whatever the vector width, so that a wide
  // vector does not write most of a cache line again for 5 bytes (measured with AVX-512 on an EPYC
  // VM: from 10^60 1.15x, from 10^15 1.1x of whole-vector stores). The vector goes through the
  // stack, where the compiler takes its low 16 bytes; number lines stay whole vectors, which
  // measured at half the speed staged that way.
  auto word = [&](batch w, std::size_t n) {
    if constexpr (size > 16) {
      alignas(64) std::uint8_t staged[size];
      w.store_aligned(staged);
      std::memcpy(o, staged, 16);
    } else {
      w.store_unaligned(o);
    }
    o += n;
  };
  for (std::uint64_t b = 0; b < blocks; ++b) {
    wide<Arch, N> const p1 = increment<Arch, N, U>(p0, one, len);
    wide<Arch, N> const p2 = increment<Arch, N, U>(p1, one, len);
    // 30k+1 .. 30k+10
    num(p0, 1), num(p0, 2), word(fizz, 5), num(p0, 4), word(buzz, 5);
    word(fizz, 5), num(p0, 7), num(p0, 8), word(fizz, 5), word(buzz, 5);
    // 30k+11 .. 30k+20
    num(p1, 1), word(fizz, 5), num(p1, 3), num(p1, 4), word(fizzbuzz, 9);
    num(p1, 6), num(p1, 7), word(fizz, 5), num(p1, 9), word(buzz, 5);
    // 30k+21 .. 30k+30
    word(fizz, 5), num(p2, 2), num(p2, 3), word(fizz, 5), word(buzz, 5);
    num(p2, 6), word(fizz, 5), num(p2, 8), num(p2, 9), word(fizzbuzz, 9);
    p0 = increment<Arch, N, U>(p2, one, len);
  }
  for (std::size_t j = 0; j < N; ++j) p0.v[j].store_aligned(bytes + j * size);
  std::memcpy(prefix, bytes, len);
  return reinterpret_cast<char*>(o);
}

/// blocks_of for a line of n vectors (N <= n <= fizzbuzz_blocks::kLineBytes / vector bytes), the
/// units digit in vector u: the last one or the one before.
template <class Arch, std::size_t N>
char* blocks_of_width(std::size_t n, std::size_t u, char* out, char* prefix, std::size_t len,
                      std::uint64_t blocks) noexcept {
  if constexpr (N < fizzbuzz_blocks::kLineBytes / byte_batch<Arch>::size) {
    if (n > N) return blocks_of_width<Arch, N + 1>(n, u, out, prefix, len, blocks);
  }
  if constexpr (N == 1) {
    return blocks_of<Arch, 1, 0>(out, prefix, len, blocks);
  } else {
    return u == N - 1 ? blocks_of<Arch, N, N - 1>(out, prefix, len, blocks)
                      : blocks_of<Arch, N, N - 2>(out, prefix, len, blocks);
  }
}

}  // namespace

template <class Arch>
char* fizzbuzz_blocks::operator()(Arch, char* out, char* prefix, std::size_t prefix_len,
                                  std::uint64_t blocks) const noexcept {
  constexpr std::size_t size = byte_batch<Arch>::size;
  std::size_t const len = prefix_len;
  // The line's vectors, and the one holding the prefix's units digit (byte len-1): a line of
  // len + 2 bytes ends in vector (len + 1) / size, and the units digit is in that one or the one
  // before.
  std::size_t const n = (len + 2 + size - 1) / size, u = (len - 1) / size;
  return blocks_of_width<Arch, 1>(n, u, out, prefix, len, blocks);
}

}  // namespace fizzgen
