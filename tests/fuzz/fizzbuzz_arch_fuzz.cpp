// libFuzzer target, differential: every kernel arch this CPU runs (generators/arch.hpp) fills the
// chunks of the same FizzBuzz window, and each must give the scalar arch's bytes exactly; the
// scalar bytes must match the line-at-a-time oracle. Chunks are filled into buffers of exactly
// chunk_capacity() bytes, so ASan sees any store past the capacity the generator promised.
// Input: flags (bit 0 custom rules, bit 1 unbounded, bit 2 divisors 1..12, whose short periods
// take the custom-rules template kernel: its permutation plans on archs with rules_lane, cut
// anywhere by the chunks, its store plans elsewhere; bit 3 the stream in Morse, every arch's Morse
// kernels against the scalar arch's and the oracle's encoding), from '\n' (up to 260 digits: past every
// kernel's widest prefix), total lines (3 bytes), chunk bytes (3 bytes), then with bit 0 a rule
// count and rules (size byte [8-byte divisor] word '\n').

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "fuzz_input.hpp"
#include "generators/arch.hpp"
#include "generators/decimal.hpp"
#include "generators/fizzbuzz.hpp"
#include "generators/morse_fizzbuzz.hpp"
#include "generators/rules.hpp"
#include "morse_oracle.hpp"
#include "oracle.hpp"

namespace {

constexpr std::uint64_t kMaxLines = 4000;  // lines filled per input, per arch: enough for many 30-line kernel blocks

void require(bool ok) {
  if (!ok) std::abort();
}

/// The stream's first chunks (at least kMaxLines lines or all of them), checking the plan: chunk
/// i follows chunk i - 1 without a gap and holds at least one line.
template <class Generator>
std::string fill_all(Generator const& g, std::uint64_t& lines) {
  std::string out;
  lines = 0;
  for (std::uint64_t i = 0; lines < kMaxLines; ++i) {
    auto const c = g.plan(i);
    if (!c) break;
    require(c->index == i && c->first_line == lines && c->lines >= 1 && c->lines <= g.lines_per_chunk());
    std::vector<std::byte> buffer(g.chunk_capacity());
    std::size_t const n = g.fill(*c, buffer);
    require(n <= buffer.size());
    out.append(reinterpret_cast<char const*>(buffer.data()), n);
    lines += c->lines;
  }
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  fuzz::input in(data, size);
  std::uint8_t const flags = in.byte();
  std::string const from = fuzz::positive_digits(in.line(), 260);
  std::optional<std::uint64_t> total = in.le(3) % (2 * kMaxLines);
  if ((flags & 2) != 0) total.reset();
  std::size_t const chunk_bytes = in.le(3) % 65536 + 1;
  fizzgen::rule_set rules = fizzgen::classic_rules();
  oracle::rules oracle_rules = oracle::classic();
  if ((flags & 1) != 0) {
    rules.clear();
    oracle_rules.clear();
    for (unsigned n = in.byte() % 4 + 1; n > 0; --n) {
      std::uint8_t const k = in.byte();
      std::uint64_t divisor = k < 0xf0 ? k + 1u : in.le(8);
      if (divisor == 0) divisor = 1;
      if ((flags & 4) != 0) divisor = divisor % 12 + 1;
      std::string const word = fuzz::word(in.line(), 64);
      rules.push_back({divisor, word});
      oracle_rules.emplace_back(divisor, word);
    }
  }

  auto const start = *fizzgen::decimal::parse(from);
  fizzgen::kernel_arch const& scalar = fizzgen::kernel_archs().back();
  // The scalar arch's stream against the oracle, then every other arch's against the scalar one.
  auto const differential = [&]<class Generator>(std::type_identity<Generator>, auto oracle_of) {
    std::uint64_t lines = 0;
    std::string const want = fill_all(Generator(start, rules, total, chunk_bytes, scalar), lines);
    if (total) require(*total <= kMaxLines ? lines == *total : lines >= kMaxLines && lines <= *total);
    if (want != oracle_of(oracle::fizzbuzz_lines(from, oracle_rules, lines))) std::abort();
    for (fizzgen::kernel_arch const& arch : fizzgen::kernel_archs()) {
      if (!arch.available || &arch == &scalar) continue;
      std::uint64_t arch_lines = 0;
      if (fill_all(Generator(start, rules, total, chunk_bytes, arch), arch_lines) != want) std::abort();
      require(arch_lines == lines);
    }
  };
  if ((flags & 8) != 0) {
    differential(std::type_identity<fizzgen::morse_fizzbuzz>{},
                 [](std::string const& plain) { return morse_oracle::encode(plain); });
  } else {
    differential(std::type_identity<fizzgen::fizzbuzz>{}, [](std::string plain) { return plain; });
  }
  return 0;
}
