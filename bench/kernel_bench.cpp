// Bytes per second of chunk generation for each kernel arch, next to memset and a loop of vector
// stores into the same buffer.
// Run: build/release/bench/fizzgen_kernel_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>

#include <xsimd/xsimd.hpp>

#include <cstring>
#include <string>

#include "engine/buffer.hpp"
#include "generators/arch.hpp"
#include "generators/fizzbuzz.hpp"
#include "generators/yes.hpp"

namespace fizzgen::bench {
void store_loop_avx512(std::byte* buf, std::size_t bytes, std::size_t offset, std::uint8_t value) noexcept;
}  // namespace fizzgen::bench

namespace {

using namespace fizzgen;

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;  // about L2-sized, like the engine's chunks

/// Fills chunk after chunk of the stream from `from` into one buffer, as a worker does.
void fill_chunks(benchmark::State& state, kernel_arch const& arch, char const* from, rule_set rules) {
  if (!arch.available) {
    state.SkipWithError("arch not available on this CPU");
    return;
  }
  fizzbuzz const gen(*decimal::parse(from), std::move(rules), std::nullopt, kChunkBytes, arch);
  buffer buf(gen.chunk_capacity());
  std::uint64_t index = 0, bytes = 0;
  for (auto _ : state) {
    bytes += gen.fill(*gen.plan(index++), buf.span());
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  state.counters["bytes_per_second"] = benchmark::Counter(static_cast<double>(bytes), benchmark::Counter::kIsRate);
}

void memset_baseline(benchmark::State& state) {
  buffer buf(kChunkBytes);
  std::uint64_t bytes = 0;
  int value = 0;
  for (auto _ : state) {
    std::memset(buf.data(), '0' + (value++ & 7), kChunkBytes);
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
    bytes += kChunkBytes;
  }
  state.counters["bytes_per_second"] = benchmark::Counter(static_cast<double>(bytes), benchmark::Counter::kIsRate);
}

/// 64-byte vector stores of a constant through the same buffer, from `offset` (0: aligned), in
/// bench/store_loop_avx512.cpp: what a kernel that stores vectors cannot beat.
void store_loop_baseline(benchmark::State& state, std::size_t offset) {
  if (!xsimd::avx512f::available()) {
    state.SkipWithError("no AVX-512F on this CPU");
    return;
  }
  buffer buf(kChunkBytes);
  std::uint64_t bytes = 0;
  std::uint8_t value = 0;
  for (auto _ : state) {
    bench::store_loop_avx512(buf.data(), kChunkBytes, offset, static_cast<std::uint8_t>('0' + (value++ & 7)));
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
    bytes += kChunkBytes - offset;
  }
  state.counters["bytes_per_second"] = benchmark::Counter(static_cast<double>(bytes), benchmark::Counter::kIsRate);
}

void register_all() {
  benchmark::RegisterBenchmark("memset/1MiB", memset_baseline);
  benchmark::RegisterBenchmark("stores/1MiB/aligned", [](benchmark::State& st) { store_loop_baseline(st, 0); });
  benchmark::RegisterBenchmark("stores/1MiB/unaligned", [](benchmark::State& st) { store_loop_baseline(st, 13); });
  struct start {
    char const* label;
    std::string from;
  };
  for (start s : {start{"from_1", "1"}, start{"from_1e9", "1000000000"}, start{"from_1e15", "1000000000000000"},
                  start{"from_1e18", "1000000000000000000"}, start{"from_1e25", "10000000000000000000000000"},
                  start{"from_1e60", "1" + std::string(60, '0')}, start{"from_1e100", "1" + std::string(100, '0')}}) {
    for (auto const& arch : kernel_archs()) {
      std::string const name = "classic/" + std::string(s.label) + "/" + std::string(arch.name);
      benchmark::RegisterBenchmark(
          name.c_str(), [&arch, s](benchmark::State& st) { fill_chunks(st, arch, s.from.c_str(), classic_rules()); });
    }
  }
  // Custom rules: the template kernel on the vector archs, the table path on scalar. Periods 105,
  // 14 and 2000 (Q = lcm(period, 10) lines of precomputed stores).
  struct custom {
    char const* label;
    rule_set rules;
  };
  for (custom const& c : {custom{"3:Fizz,5:Buzz,7:Bazz", {{3, "Fizz"}, {5, "Buzz"}, {7, "Bazz"}}},
                          custom{"2:Even,7:Seven", {{2, "Even"}, {7, "Seven"}}},
                          custom{"16:Sixteen,125:Hundred", {{16, "Sixteen"}, {125, "Hundred"}}}}) {
    for (start s : {start{"from_1", "1"}, start{"from_1e9", "1000000000"}}) {
      for (auto const& arch : kernel_archs()) {
        std::string const name = "custom/" + std::string(c.label) + "/" + s.label + "/" + std::string(arch.name);
        benchmark::RegisterBenchmark(
            name.c_str(), [&arch, s, c](benchmark::State& st) { fill_chunks(st, arch, s.from.c_str(), c.rules); });
      }
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
}
