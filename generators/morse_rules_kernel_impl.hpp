#pragma once
// Definition of the Morse FizzBuzz kernel for custom rules (generators/morse_rules_plan.hpp); included
// only by the per-arch translation units. Everything has internal linkage, so no inline function
// compiled for one instruction set can be picked by the linker for another. Vectors are the
// compiler's generic ones: each translation unit's flags decide the instructions.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "generators/morse_fizzbuzz_kernel_impl.hpp"  // digit_code
#include "generators/morse_rules_plan.hpp"

namespace fizzgen {
namespace {

template <std::size_t V>
struct rules_vector {
  typedef std::uint8_t type __attribute__((vector_size(V)));  // NOLINT(modernize-use-using): attribute placement
};

/// Each decimal digit's code and its space.
struct digit_images {
  char bytes[10][6];
  constexpr digit_images() noexcept : bytes{} {
    for (unsigned u = 0; u < 10; ++u) {
      digit_code(u, bytes[u]);
      bytes[u][5] = ' ';
    }
  }
};

/// Writes `lines` lines with `plan` (its width for every number) from the number whose digits
/// are at `number`, which is `phase` mod the template's Q (phase < Q <= plan.block_lines).
template <std::size_t V>
char* morse_rules_lines(char* out, morse_rules_plan const& plan, char const* number, std::uint64_t phase,
                        std::uint64_t lines, std::byte* scratch) noexcept {
  using vec = typename rules_vector<V>::type;
  static constexpr digit_images kDigits{};
  std::size_t const len = plan.width - 1;
  std::size_t const nv = plan.prefix_vectors;
  std::size_t const low_digits = plan.low_digits();
  std::size_t const high_len = len - low_digits;
  unsigned const span = low_digits == 2 ? 100 : 10;
  // The scratch (morse_rules_plan::scratch_bytes): every group's prefix vectors and the zero
  // vector, then the image of the high digits (zeros after them), then those digits.
  auto* const slots = reinterpret_cast<std::uint8_t*>(scratch);
  std::uint8_t* const high = slots + (plan.groups * nv + 1) * V;
  char* const digits = reinterpret_cast<char*>(high + nv * V + 64);
  std::memset(slots + plan.groups * nv * V, 0, V);
  std::memset(high, 0, nv * V + 64);
  std::memcpy(digits, number, high_len);
  for (std::size_t i = 0; i < high_len; ++i) std::memcpy(high + 6 * i, kDigits.bytes[digits[i] - '0'], 6);
  unsigned t = 0;  // the low digits' value
  for (std::size_t i = high_len; i < len; ++i) t = t * 10 + static_cast<unsigned>(number[i] - '0');
  // prefix + 1; the caller guarantees that the width stays, so a carry out of the low digits
  // finds a high digit that is not 9.
  auto const increment = [&] {
    if (++t != span) [[likely]]
      return;
    t = 0;
    if (high_len == 0) return;  // never: the width would grow
    std::size_t i = high_len;
    while (i > 1 && digits[i - 1] == '9') {
      digits[--i] = '0';
      std::memcpy(high + 6 * i, kDigits.bytes[0], 6);
    }
    ++digits[i - 1];
    std::memcpy(high + 6 * (i - 1), kDigits.bytes[digits[i - 1] - '0'], 6);
  };
  std::uint8_t const* const low = plan.low.data();
  auto const keep_image = [&](std::uint64_t group) {
    for (std::size_t k = 0; k < nv; ++k) {
      vec h;
      vec l;
      std::memcpy(&h, high + k * V, V);
      std::memcpy(&l, low + (t * nv + k) * V, V);
      h |= l;
      std::memcpy(slots + (group * nv + k) * V, &h, V);
    }
  };

  std::uint8_t const* const images = plan.images.data();
  morse_store const* const stores = plan.stores.data();
  char* o = out;
  std::uint64_t j = phase;
  for (;;) {
    std::uint64_t const end = std::min<std::uint64_t>(plan.block_lines, j + lines);
    // The prefix vectors of the groups this pass writes.
    for (std::uint64_t g = j / 10, last = (end - 1) / 10;; ++g) {
      keep_image(g);
      if (g == last) break;
      increment();
    }
    // Word lines up to the first line a store starts, then the stores.
    std::uint32_t const from = plan.line_offset[j];
    std::uint32_t const stored = std::min<std::uint32_t>(plan.stored_line[j], static_cast<std::uint32_t>(end));
    std::memcpy(o, plan.text.data() + from, plan.line_offset[stored] - from);
    for (std::uint32_t s = plan.line_store[stored], e = plan.line_store[end]; s < e; ++s) {
      vec a;
      vec b;
      std::memcpy(&a, slots + std::size_t{stores[s].prefix} * V, V);
      std::memcpy(&b, images + std::size_t{stores[s].image} * V, V);
      a |= b;
      std::memcpy(o + (stores[s].offset - from), &a, V);
    }
    o += plan.line_offset[end] - from;
    lines -= end - j;
    if (lines == 0) return o;
    increment();  // the next block's first group
    j = 0;
  }
}

/// Runs the instantiation for the plan's store width, at most MaxV.
template <std::size_t MaxV>
char* morse_rules_for(char* out, morse_rules_plan const& plan, char const* number, std::uint64_t phase,
                      std::uint64_t lines, std::byte* scratch) noexcept {
  if constexpr (MaxV >= 64)
    if (plan.store_bytes == 64) return morse_rules_lines<64>(out, plan, number, phase, lines, scratch);
  if constexpr (MaxV >= 32)
    if (plan.store_bytes == 32) return morse_rules_lines<32>(out, plan, number, phase, lines, scratch);
  return morse_rules_lines<16>(out, plan, number, phase, lines, scratch);
}

}  // namespace
}  // namespace fizzgen
