// generator::fill is noexcept and runs once per chunk on every worker: it must not allocate (an
// allocation there could only end in std::terminate, and costs time in the hot loop). This test
// binary replaces the global operator new with one that counts the calls made on the thread that
// asked, and fills every chunk of windows that take each path: the vector kernels, the custom-rules
// template and table paths, the line-at-a-time path, numbers past 2^64 and digit roll-overs, the
// Morse stream, yes. Its own executable, so that no other test runs under the replaced operator.

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include "generators/arch.hpp"
#include "generators/decimal.hpp"
#include "generators/fizzbuzz.hpp"
#include "generators/morse_fizzbuzz.hpp"
#include "generators/rules.hpp"
#include "generators/yes.hpp"

namespace {
thread_local bool t_counting = false;
thread_local std::size_t t_allocations = 0;
}  // namespace

// The replaced pair allocates with malloc and frees with free, which GCC cannot tell from a
// mismatch inside operator delete itself.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif
void* operator new(std::size_t n) {
  if (t_counting) ++t_allocations;
  if (void* p = std::malloc(n != 0 ? n : 1)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

namespace {

using fizzgen::decimal;

/// Allocations made while filling every chunk of g (each into a buffer of exactly
/// chunk_capacity() bytes, as the engine's are at least), up to `max_chunks`.
std::size_t allocations_in_fill(fizzgen::generator const& g, std::size_t max_chunks = 400) {
  std::vector<std::byte> buffer(g.chunk_capacity());
  std::size_t allocations = 0;
  for (std::uint64_t i = 0; i < max_chunks; ++i) {
    std::optional<fizzgen::chunk> const c = g.plan(i);
    if (!c) break;
    t_allocations = 0;
    t_counting = true;
    std::size_t const n = g.fill(*c, buffer);
    t_counting = false;
    allocations += t_allocations;
    EXPECT_LE(n, buffer.size());
  }
  return allocations;
}

struct window {
  char const* from;
  std::uint64_t lines;
};

// Across roll-overs (9 -> 10, 99999 -> 100000, 2^64, 10^20) and at a 40-digit start.
std::vector<window> const kWindows = {{"1", 20000},
                                      {"99990", 40},
                                      {"18446744073709551600", 400},
                                      {"99999999999999999990", 100},
                                      {"1234567890123456789012345678901234567890", 200}};

TEST(FillAllocates, NothingOnAnyArchOrPath) {
  std::vector<std::pair<char const*, fizzgen::rule_set>> const rule_sets{
      {"classic", fizzgen::classic_rules()},
      {"short period (template kernel)", {{3, "Fizz"}, {5, "Buzz"}, {7, "Bazz"}}},
      {"long words (table path)", {{2, std::string(40, 'w')}, {3, "x"}}},
      {"long period (line at a time)", {{65537, "Big"}, {3, "Fizz"}}},
  };
  for (fizzgen::kernel_arch const& arch : fizzgen::kernel_archs()) {
    if (!arch.available) continue;
    for (auto const& [what, rules] : rule_sets)
      for (window const& w : kWindows)
        for (std::size_t chunk_bytes : {std::size_t{100}, std::size_t{4096}, fizzgen::fizzbuzz::kDefaultChunkBytes}) {
          fizzgen::fizzbuzz const plain(*decimal::parse(w.from), rules, w.lines, chunk_bytes, arch);
          EXPECT_EQ(allocations_in_fill(plain), 0u) << arch.name << ", " << what << ", from " << w.from;
          if (rules.size() == 3 && arch.rules != nullptr) {
            EXPECT_TRUE(plain.uses_kernel()) << arch.name;
          }
          fizzgen::morse_fizzbuzz const morse(*decimal::parse(w.from), rules, w.lines, chunk_bytes, arch);
          EXPECT_EQ(allocations_in_fill(morse), 0u) << arch.name << ", Morse, " << what << ", from " << w.from;
          if (rules.size() == 3 && arch.morse_rules != nullptr) {
            EXPECT_TRUE(morse.uses_kernel()) << arch.name;
          }
        }
  }
}

TEST(FillAllocates, NothingForYes) {
  fizzgen::yes const g({"hello", "world"}, 100000, 4096);
  EXPECT_EQ(allocations_in_fill(g), 0u);
}

TEST(FillAllocates, TheCounterSeesAnAllocation) {
  // The harness itself: an allocation on this thread while counting is counted.
  t_allocations = 0;
  t_counting = true;
  auto const p = std::make_unique<std::string>(100, 'x');
  t_counting = false;
  EXPECT_GE(t_allocations, 1u);
}

}  // namespace
