#pragma once
// Definition of rule_template_fill; included only by the per-arch translation units. Everything
// here is templated on Arch or has internal linkage, so no inline function compiled for one
// instruction set can be picked by the linker for another.

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <vector>

#include "generators/rule_template.hpp"

namespace fizzgen {
namespace {

template <class Arch>
using rule_batch = xsimd::batch<std::uint8_t, Arch>;

/// `n` bytes of `text` at the start of a vector, zeros after.
template <class Arch>
rule_batch<Arch> rule_image(char const* text, std::size_t n) noexcept {
  alignas(64) std::uint8_t bytes[rule_batch<Arch>::size] = {};
  std::memcpy(bytes, text, n);
  return rule_batch<Arch>::load_aligned(bytes);
}

/// The prefix in p (digits in bytes [0, len)) plus one; `one` has a 1 at byte len-1. A units
/// digit that became ':' carries, which the scalar path resolves (one increment in ten).
template <class Arch>
rule_batch<Arch> next_prefix(rule_batch<Arch> p, rule_batch<Arch> one, std::size_t len) noexcept {
  rule_batch<Arch> const q = p + one;
  if (!xsimd::any(q == rule_batch<Arch>(static_cast<std::uint8_t>(':')))) [[likely]]
    return q;
  alignas(64) std::uint8_t bytes[rule_batch<Arch>::size];
  p.store_aligned(bytes);
  std::size_t i = len;
  while (i > 1 && bytes[i - 1] == '9') bytes[--i] = '0';  // the caller guarantees the width never grows
  ++bytes[i - 1];
  return rule_batch<Arch>::load_aligned(bytes);
}

}  // namespace

template <class Arch>
char* rule_template_fill::operator()(Arch, char* out, rule_template const& t, char const* number, std::size_t width,
                                     std::uint64_t phase, std::uint64_t lines, std::byte* scratch) const noexcept {
  using batch = rule_batch<Arch>;
  constexpr std::size_t w = batch::size;
  std::size_t const len = width - 1;  // the prefix: every digit but the units
  std::size_t const n_images = 10 + t.words.size();

  // Image k < 10: units digit k and the newline after the prefix, which `keep` lets through.
  // Image 10 + i: word line i, which `keep` (all zero) shields from the prefix.
  batch image[rule_template::kImages];
  batch keep[rule_template::kImages];
  std::uint8_t bytes[rule_template::kImages];
  {
    alignas(64) std::uint8_t b[w] = {};
    for (int u = 0; u < 10; ++u) {
      b[len] = static_cast<std::uint8_t>('0' + u);
      b[len + 1] = '\n';
      image[u] = batch::load_aligned(b);
      keep[u] = batch(std::uint8_t{0xFF});
      bytes[u] = static_cast<std::uint8_t>(width + 1);
    }
  }
  for (std::size_t k = 10; k < n_images; ++k) {
    std::string const& word = t.words[k - 10];
    alignas(64) std::uint8_t b[w] = {};
    std::memcpy(b, word.data(), word.size());
    b[word.size()] = '\n';
    image[k] = batch::load_aligned(b);
    keep[k] = batch(std::uint8_t{0});
    bytes[k] = static_cast<std::uint8_t>(word.size() + 1);
  }
  batch p = rule_image<Arch>(number, len);
  alignas(64) std::uint8_t one_bytes[w] = {};
  one_bytes[len - 1] = 1;
  batch const one = batch::load_aligned(one_bytes);

  auto* o = reinterpret_cast<std::uint8_t*>(out);
  std::uint8_t const* const table = t.line_image.data();
  // The store address depends on the previous line only through one add, so the stores stream.
  auto line = [&](std::uint8_t k) {
    ((p & keep[k]) | image[k]).store_unaligned(o);
    o += bytes[k];
  };
  std::uint64_t const q = t.block_lines;
  std::uint64_t j = phase;
  std::uint64_t left = lines;
  // Line by line up to `until` lines left or the end; true when lines are left.
  auto line_by_line = [&](std::uint64_t until) {
    while (left > until) {
      std::uint64_t const group = std::min(10 - j % 10, left - until);
      if (group == 10) {
        for (int i = 0; i < 10; ++i) line(table[j + i]);  // unrolled: the common case
      } else {
        for (std::uint64_t i = 0; i < group; ++i) line(table[j + i]);
      }
      left -= group;
      j += group;
      if (j == q) j = 0;
      if (left == 0) return false;
      if (j % 10 == 0) p = next_prefix<Arch>(p, one, len);  // only before a line is written
    }
    return true;
  };
  // Line by line up to the first whole block; whole blocks with the width's planned stores (about
  // half as many as lines, no per-line table lookups); then line by line again.
  std::uint64_t const head = (q - j) % q;
  if (left < head + q) {
    line_by_line(0);
    return reinterpret_cast<char*>(o);
  }
  if (!line_by_line(left - head)) return reinterpret_cast<char*>(o);
  block_plan const* plan = width < t.plans.size() ? &t.plans[width] : nullptr;
  if (plan == nullptr || plan->store_bytes != w) {
    line_by_line(0);
    return reinterpret_cast<char*>(o);
  }
  std::vector<block_store> const& stores = plan->stores;
  std::vector<std::uint8_t> const& images = plan->images;
  std::size_t const block_bytes = plan->block_bytes;
  // The block's vectors live in the caller's scratch (t.scratch_bytes, 64-aligned): w-byte slots,
  // read and written with aligned loads and stores. image_of[i]: image i; prefix[g]: the prefix of
  // group g; low[t]: t's two digits at the prefix's last bytes.
  std::uint8_t* const image_of = reinterpret_cast<std::uint8_t*>(scratch);
  std::memcpy(image_of, images.data(), images.size());
  std::uint32_t const groups = static_cast<std::uint32_t>(q / 10);
  std::uint8_t* const prefix = image_of + (images.size() + 63) / 64 * 64;
  std::uint8_t* const low = prefix + (groups + 1) * w;
  auto const at = [](std::uint8_t* base, std::size_t i) { return base + i * w; };
  batch high_mask(std::uint8_t{0});
  if (len >= 2) {
    alignas(64) std::uint8_t b[w] = {};
    for (unsigned v = 0; v < 100; ++v) {
      b[len - 2] = static_cast<std::uint8_t>('0' + v / 10);
      b[len - 1] = static_cast<std::uint8_t>('0' + v % 10);
      std::memcpy(at(low, v), b, w);
    }
    std::memset(b, 0, sizeof b);
    std::memset(b, 0xFF, len - 2);
    high_mask = batch::load_aligned(b);
  }
  batch(std::uint8_t{0}).store_aligned(at(prefix, groups));
  while (left >= q) {
    if (len < 2) {  // numbers 10..99: too few to matter
      p.store_aligned(at(prefix, 0));
      for (std::uint32_t g = 1; g < groups; ++g)
        next_prefix<Arch>(batch::load_aligned(at(prefix, g - 1)), one, len).store_aligned(at(prefix, g));
    } else {
      // The prefix is high | low[t], t its last two digits: within a hundred no carries at all,
      // where a carry-checked increment per group mispredicts at every tenth.
      alignas(64) std::uint8_t digits[w];
      p.store_aligned(digits);
      unsigned last2 = (digits[len - 2] - '0') * 10u + (digits[len - 1] - '0');
      batch high = p & high_mask;
      for (std::uint32_t g = 0; g < groups; ++g, ++last2) {
        if (last2 == 100) [[unlikely]] {
          high = next_prefix<Arch>(high | batch::load_aligned(at(low, 99)), one, len) & high_mask;
          last2 = 0;
        }
        (high | batch::load_aligned(at(low, last2))).store_aligned(at(prefix, g));
      }
    }
    for (block_store const& s : stores)
      (batch::load_aligned(at(image_of, s.image)) | batch::load_aligned(at(prefix, s.group)))
          .store_unaligned(o + s.offset);
    o += block_bytes;
    left -= q;
    if (left == 0) return reinterpret_cast<char*>(o);
    p = next_prefix<Arch>(batch::load_aligned(at(prefix, groups - 1)), one, len);
  }
  line_by_line(0);
  return reinterpret_cast<char*>(o);
}

}  // namespace fizzgen
