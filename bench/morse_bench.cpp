// Morse speed in bytes per second of input: the byte-at-a-time oracle (tests/morse_oracle.hpp)
// beside the fast encoder and decoder on one core (scalar, and each arch's kernel; the decoder also
// on its worst case, groups of 7 symbols), the TBB pipeline at 1, 2 and 4
// threads, and the FizzBuzz stream in Morse per kernel arch beside memset into the same buffer. Run:
// build/release/bench/morse_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true

#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>
#include <vector>

#include "engine/buffer.hpp"
#include "engine/morse_stream.hpp"
#include "generators/arch.hpp"
#include "generators/morse_codec.hpp"
#include "generators/morse_fizzbuzz.hpp"
#include "morse_oracle.hpp"
#include "morse_text.hpp"

namespace {

using namespace fizzgen;

constexpr std::size_t kTextBytes = std::size_t{1} << 18;  // one pipeline chunk: its Morse fits in L2

/// English-like text (tests/morse_text.hpp), the same bytes in every run.
std::string const& text() {
  static std::string const t = morse_text::english_like(1, kTextBytes);
  return t;
}

/// Morse of the text, cut after a separator near kTextBytes: a pipeline decode chunk.
std::string const& morse_text() {
  static std::string const m = [] {
    std::string s = morse_oracle::encode(text());
    std::size_t cut = kTextBytes;
    while (s[cut - 1] != ' ' && s[cut - 1] != '\n') --cut;
    s.resize(cut);
    return s;
  }();
  return m;
}

/// The decoder's worst case: every group 7 symbols (the Morse of '$' again and again), about
/// kTextBytes of it; the output is an eighth of the input.
std::string const& morse_sevens() {
  static std::string const m = morse_oracle::encode(std::string(kTextBytes / 8, '$')) + ' ';
  return m;
}

void rate(benchmark::State& state, std::uint64_t bytes) {
  state.counters["bytes_per_second"] = benchmark::Counter(static_cast<double>(bytes), benchmark::Counter::kIsRate);
}

void encode_oracle(benchmark::State& state) {
  std::uint64_t bytes = 0;
  for (auto _ : state) {
    std::string out = morse_oracle::encode(text());
    benchmark::DoNotOptimize(out.data());
    bytes += text().size();
  }
  rate(state, bytes);
}

void encode_fast(benchmark::State& state) {
  std::vector<char> out(morse::encode_bound(text().size()));
  std::uint64_t bytes = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(morse::encode_eager(text(), out.data()));
    benchmark::ClobberMemory();
    bytes += text().size();
  }
  rate(state, bytes);
}

/// One arch's kernel: run(out) over `input` into `room` bytes, again and again.
template <class Run>
void arch_rate(benchmark::State& state, kernel_arch const& arch, std::string const& input, std::size_t room, Run run) {
  if (!arch.available) {
    state.SkipWithError("arch not available on this CPU");
    return;
  }
  std::vector<char> out(room);
  std::uint64_t bytes = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(run(out.data()));
    benchmark::ClobberMemory();
    bytes += input.size();
  }
  rate(state, bytes);
}

/// The encoder with one arch's kernel (the scalar encoder for archs without one).
void encode_arch(benchmark::State& state, kernel_arch const& arch) {
  arch_rate(state, arch, text(), morse::encode_bound(text().size()),
            [&arch](char* out) { return morse::encode_eager(text(), out, arch); });
}

void decode_oracle(benchmark::State& state) {
  std::uint64_t bytes = 0;
  for (auto _ : state) {
    std::string out = morse_oracle::decode(morse_text());
    benchmark::DoNotOptimize(out.data());
    bytes += morse_text().size();
  }
  rate(state, bytes);
}

void decode_fast(benchmark::State& state) {
  std::vector<char> out(morse::decode_bound(morse_text().size()));
  std::uint64_t bytes = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(morse::decode(morse_text(), out.data()));
    benchmark::ClobberMemory();
    bytes += morse_text().size();
  }
  rate(state, bytes);
}

/// The decoder with one arch's kernel.
void decode_arch(benchmark::State& state, kernel_arch const& arch) {
  arch_rate(state, arch, morse_text(), morse::decode_bound(morse_text().size()),
            [&arch](char* out) { return morse::decode(morse_text(), out, arch); });
}

/// The decoder with one arch's kernel on groups of 7 symbols.
void decode_sevens_arch(benchmark::State& state, kernel_arch const& arch) {
  arch_rate(state, arch, morse_sevens(), morse::decode_bound(morse_sevens().size()),
            [&arch](char* out) { return morse::decode(morse_sevens(), out, arch); });
}

/// The whole pipeline: 32 MiB from a memory file (mapped, as a file is) to /dev/null.
void pipeline(benchmark::State& state, morse_direction direction) {
  std::string const& piece = direction == morse_direction::encode ? text() : morse_text();
  int const in = ::memfd_create("morse_bench", 0);
  std::size_t total = 0;
  while (total < (std::size_t{32} << 20)) {
    if (::write(in, piece.data(), piece.size()) != static_cast<ssize_t>(piece.size())) {
      state.SkipWithError("cannot fill the memory file");
      return;
    }
    total += piece.size();
  }
  int const out = ::open("/dev/null", O_WRONLY);
  morse_stream_options o;
  o.direction = direction;
  o.threads = static_cast<unsigned>(state.range(0));
  std::uint64_t bytes = 0;
  for (auto _ : state) {
    ::lseek(in, 0, SEEK_SET);
    morse_stream_report const r = run_morse_stream(in, out, o);
    if (r.status != emit_status::ok) state.SkipWithError(r.error.c_str());
    bytes += r.bytes_in;
  }
  rate(state, bytes);
  ::close(in);
  ::close(out);
}

constexpr std::size_t kChunkBytes = std::size_t{1} << 20;  // the engine's chunk size

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
  rate(state, bytes);
}

/// Fills chunk after chunk of the Morse FizzBuzz stream from `from` into one buffer, as a worker does.
void morse_fizzbuzz_chunks(benchmark::State& state, kernel_arch const& arch, char const* from) {
  if (!arch.available) {
    state.SkipWithError("arch not available on this CPU");
    return;
  }
  morse_fizzbuzz const gen(*decimal::parse(from), classic_rules(), std::nullopt, kChunkBytes, arch);
  buffer buf(gen.chunk_capacity());
  std::uint64_t index = 0, bytes = 0;
  for (auto _ : state) {
    bytes += gen.fill(*gen.plan(index++), buf.span());
    benchmark::DoNotOptimize(buf.data());
    benchmark::ClobberMemory();
  }
  rate(state, bytes);
}

void register_all() {
  benchmark::RegisterBenchmark("encode/oracle", encode_oracle);
  benchmark::RegisterBenchmark("encode/fast", encode_fast);
  for (auto const& arch : kernel_archs())
    if (arch.morse_encode != nullptr)
      benchmark::RegisterBenchmark(("encode/" + std::string(arch.name)).c_str(),
                                   [&arch](benchmark::State& st) { encode_arch(st, arch); });
  benchmark::RegisterBenchmark("decode/oracle", decode_oracle);
  benchmark::RegisterBenchmark("decode/fast", decode_fast);
  for (auto const& arch : kernel_archs())
    if (arch.morse_decode != nullptr)
      benchmark::RegisterBenchmark(("decode/" + std::string(arch.name)).c_str(),
                                   [&arch](benchmark::State& st) { decode_arch(st, arch); });
  for (auto const& arch : kernel_archs())
    if (arch.morse_decode != nullptr)
      benchmark::RegisterBenchmark(("decode/sevens/" + std::string(arch.name)).c_str(),
                                   [&arch](benchmark::State& st) { decode_sevens_arch(st, arch); });
  benchmark::RegisterBenchmark("encode/pipeline", pipeline, morse_direction::encode)
      ->ArgName("threads")
      ->Arg(1)
      ->Arg(2)
      ->Arg(4)
      ->UseRealTime();
  benchmark::RegisterBenchmark("decode/pipeline", pipeline, morse_direction::decode)
      ->ArgName("threads")
      ->Arg(1)
      ->Arg(2)
      ->Arg(4)
      ->UseRealTime();
  benchmark::RegisterBenchmark("fizzbuzz/memset/1MiB", memset_baseline);
  struct start {
    char const* label;
    char const* from;
  };
  for (start s : {start{"from_1", "1"}, start{"from_1e9", "1000000000"}, start{"from_1e15", "1000000000000000"}}) {
    for (auto const& arch : kernel_archs()) {
      std::string const name = "fizzbuzz/" + std::string(s.label) + "/" + std::string(arch.name);
      benchmark::RegisterBenchmark(name.c_str(),
                                   [&arch, s](benchmark::State& st) { morse_fizzbuzz_chunks(st, arch, s.from); });
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
