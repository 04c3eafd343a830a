#pragma once
// The permuting template kernel: custom-rules lines written from a width's permute_plan
// (generators/rule_template.hpp), a few lines per vector store as the classic kernel writes them.
// Included only by the per-arch translation units, which supply the lane writer; everything here
// is templated on Arch or has internal linkage, so no inline function compiled for one
// instruction set can be picked by the linker for another.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "generators/rule_template.hpp"

namespace fizzgen {
namespace {

/// The arrays of a permutation plan that a lane writer reads, as plain pointers (a writer is
/// copied into permute_lines, where no store can alias them, so they stay in registers).
struct permute_arrays {
  std::uint32_t const* window;
  std::uint8_t const* index;
  std::uint8_t const* image;
  std::uint8_t const* spread_index;
  std::uint8_t const* spread_low;

  explicit permute_arrays(permute_plan const& plan) noexcept
      : window(plan.window.data()),
        index(lane_data(plan.index)),
        image(lane_data(plan.image)),
        spread_index(lane_data(plan.spread_index)),
        spread_low(lane_data(plan.spread_low)) {}
};

/// A number's prefix as digits: `low` its last one or two (the place in a run of `span` = 10 or
/// 100 prefixes sharing the others), `high` the others (0 to 60 digits), 64-aligned with zeros
/// after them, as the Writer's spread reads them.
struct split_prefix {
  alignas(64) std::uint8_t high[64] = {};
  std::size_t high_len = 0;
  std::uint64_t low = 0, span = 100;

  /// The prefix of `len` digits at `digits`, minus `back` (< its value).
  split_prefix(char const* digits, std::size_t len, std::uint64_t back) noexcept {
    std::size_t const tail = std::min<std::size_t>(len, 2);
    high_len = len - tail;
    span = tail == 2 ? 100 : 10;
    std::memcpy(high, digits, high_len);
    low = static_cast<std::uint64_t>(digits[len - 1] - '0') + (tail == 2 ? 10u * (digits[len - 2] - '0') : 0u);
    // low - back, borrowing runs of `span` from high.
    std::uint64_t const runs = back / span + (back % span > low ? 1 : 0);
    low = low + runs * span - back;
    for (std::uint64_t r = 0; r < runs; ++r) {
      std::size_t i = high_len;
      while (i > 0 && high[i - 1] == '0') high[--i] = '9';
      if (i > 0) --high[i - 1];
    }
  }

  /// high plus one (a high of nines, past the width's last number, is never read again).
  void next_run() noexcept {
    std::size_t i = high_len;
    while (i > 0 && high[i - 1] == '9') high[--i] = '0';
    if (i > 0) ++high[i - 1];
  }
};

}  // namespace

/// Writes `lines` lines from the number whose width >= 2 digits are at `number`, which is `phase`
/// mod the template's block_lines, with `plan` (made for this width and Writer's lanes). The prefixes come from
/// a table of consecutive ones, `runs` runs of `span` at a time (each run written with a few
/// Writer spreads of its high digits over the plan's image of the low ones, so that no group costs
/// a store of its own); a block's windows are read from the table at its first prefix. Writer:
/// `kBytes` (a store's bytes, lanes of plan.lane_bytes), write(dst, prefixes, vector) and
/// spread(dst, high, vector), reading the plan through permute_arrays; a Writer that keeps the
/// window it loaded for the next vector (the plan gives consecutive lanes one window where it
/// can) has begin_block(), called whenever `prefixes` is another block's. Stores up to kBytes
/// past the returned end; `scratch` holds the template's scratch_bytes bytes, 64-aligned.
template <class Writer>
char* permute_lines(Writer writer, char* out, permute_plan const& plan, char const* number, std::size_t width,
                    std::uint64_t phase, std::uint64_t lines, std::byte* scratch) noexcept {
  constexpr std::size_t kBytes = Writer::kBytes;
  std::size_t const len = width - 1;
  std::uint64_t const q = plan.block_lines;  // phase, mod the template's block, is one of it too
  std::uint64_t const groups = q / 10;
  auto* const table = reinterpret_cast<std::uint8_t*>(scratch);
  // The block's first prefix (that of its phase 0, which may lie before this chunk) and where it
  // is in the table: its run (`first`, the table's first run) and its place `at` from there.
  split_prefix first(number, len, phase / 10);
  std::uint64_t const span = first.span;
  std::uint64_t const runs = rule_template::permute_runs(groups, len);
  std::size_t const run_bytes = span * len;
  std::size_t const spreads = (run_bytes + kBytes - 1) / kBytes;
  auto fill_table = [&] {
    split_prefix run = first;
    for (std::uint64_t r = 0; r < runs; ++r, run.next_run())
      for (std::size_t k = 0; k < spreads; ++k) writer.spread(table + r * run_bytes + k * kBytes, run.high, k);
  };
  std::uint64_t at = first.low;
  fill_table();
  std::uint32_t const* const offset = plan.line_offset.data();
  auto* o = reinterpret_cast<std::uint8_t*>(out);
  std::uint64_t j = phase;
  for (std::uint64_t left = lines; left > 0;) {
    std::uint64_t const end = j + std::min(left, q - j);
    if (at + (end - 1) / 10 >= runs * span) {  // the block's last prefix is past the table
      for (std::uint64_t r = 0; r < at / span; ++r) first.next_run();
      at %= span;
      fill_table();
    }
    std::uint8_t const* const block = table + at * len;
    if constexpr (requires { writer.begin_block(); }) writer.begin_block();  // a writer that keeps a window
    std::size_t const start = offset[j], stop = offset[end];
    std::size_t v = start / kBytes;  // vector v of the block goes to o + v * kBytes - start
    if (std::size_t const skip = start % kBytes; skip != 0) {
      // The first vector begins before `out`: written aside, and only its bytes from `out` on.
      alignas(64) std::uint8_t head[kBytes];
      writer.write(head, block, v);
      std::memcpy(o, head + skip, kBytes - skip);
      ++v;
    }
    for (std::size_t const last = (stop + kBytes - 1) / kBytes; v < last; ++v)
      writer.write(o + (v * kBytes - start), block, v);
    o += stop - start;
    left -= end - j;
    j = end == q ? 0 : end;
    at += groups;
  }
  return reinterpret_cast<char*>(o);
}

}  // namespace fizzgen
