#include "bench/tune.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <stdexcept>
#include <vector>

#include "bench/child.hpp"
#include "engine/plan.hpp"
#include "engine/sizing.hpp"

namespace fizzgen::bench {
namespace {

constexpr std::size_t KiB = 1024;

struct candidate {
  config c;
  bool model = false;  ///< the model's own choice (engine/sizing.hpp)
  std::vector<double> rates;
  double median = 0;
};

/// The model's plan and its neighbours: chunks from 256 KiB to 2 MiB, the pipe holding one chunk
/// or as much as allowed up to 1 MiB, and thread counts up to the CPUs allowed.
std::vector<candidate> candidates(stream_sizes const& model, std::size_t pipe_max, std::size_t cpus) {
  std::size_t const most_pipe = std::min<std::size_t>(pipe_max != 0 ? pipe_max : 1024 * KiB, 1024 * KiB);
  std::vector<unsigned> threads{1};
  for (std::size_t n : {std::size_t{2}, cpus / 2, cpus - 1, cpus})
    if (n > 1 && n <= cpus && std::find(threads.begin(), threads.end(), n) == threads.end())
      threads.push_back(static_cast<unsigned>(n));
  std::vector<candidate> out;
  auto const add = [&](std::size_t chunk, std::size_t pipe, unsigned n, bool model_choice) {
    for (candidate& e : out)
      if (e.c.chunk_bytes == chunk && e.c.pipe_size == pipe && e.c.threads == n) {
        e.model = e.model || model_choice;
        return;
      }
    candidate e;
    e.c.what = measurement::end_to_end;
    e.c.consumer = "splice";
    e.c.chunk_bytes = chunk;
    e.c.pipe_size = pipe;
    e.c.threads = n;
    e.model = model_choice;
    out.push_back(e);
  };
  add(model.chunk_bytes, model.pipe_bytes, 1, true);
  for (std::size_t chunk : {256 * KiB, 512 * KiB, 1024 * KiB, 2048 * KiB})
    for (std::size_t pipe : {std::min(chunk, most_pipe), most_pipe})
      for (unsigned n : threads) add(chunk, pipe, n, false);
  return out;
}

}  // namespace

int run_tune(tune_settings const& t) {
  std::uint64_t const bytes = t.bytes, reps = t.reps;
  auto const limit = static_cast<std::uint64_t>(t.timeout.count());
  std::string const path = plan_path();
  if (path.empty() && !t.dry_run)
    throw std::invalid_argument("nowhere to store a plan: set HOME, XDG_CACHE_HOME or FIZZGEN_PLAN, or use --dry-run");

  machine_identity const& m = this_machine();
  stream_sizes const model = size_stream(stream_kind::rewritten, topology().caches, pipe_max_size());
  std::vector<candidate> runs = candidates(model, m.pipe_max, std::max<std::size_t>(1, topology().cpus.size()));

  interrupt_guard interrupt;
  std::optional<run_dir> files{std::in_place, "fizzgen_tune"};
  std::string const dir = files->path();
  std::string const exe = self_exe();
  std::printf("fizzgen tune: %s, L2 %zu KiB, L3 %zu KiB, kernel %s, fs.pipe-max-size %zu, CPUs %s\n", m.cpu.c_str(),
              m.l2_bytes / KiB, m.l3_bytes / KiB, m.kernel.c_str(), m.pipe_max, m.cpus.c_str());
  std::printf("%zu candidates x %llu rounds of %.2f GiB into fizzgen sink --splice\n\n", runs.size(),
              static_cast<unsigned long long>(reps), static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  std::fflush(stdout);
  bool const tty = ::isatty(STDERR_FILENO) == 1;
  std::size_t failures = 0;
  for (std::uint64_t r = 0; r < reps && interrupt.received() == 0; ++r)
    for (std::size_t i = 0; i < runs.size() && interrupt.received() == 0; ++i) {
      if (tty)
        std::fprintf(stderr, "\rtune: round %llu/%llu, run %zu/%zu ", static_cast<unsigned long long>(r) + 1,
                     static_cast<unsigned long long>(reps), i + 1, runs.size());
      run_result const res = run_once(exe, runs[i].c, bytes, dir, std::chrono::seconds(static_cast<long>(limit)));
      if (interrupt.received() != 0) break;
      if (res.ok) {
        runs[i].rates.push_back(res.gib_per_second);
      } else {
        ++failures;
        std::fprintf(stderr, "%sfizzgen tune: run failed: %s\n", tty ? "\n" : "", res.error.c_str());
      }
    }
  if (tty) std::fprintf(stderr, "\r%40s\r", "");
  files.reset();
  interrupt.finish();  // interrupted: the runs' files are gone, end by the signal

  for (candidate& e : runs) e.median = e.rates.size() == reps ? median_of(e.rates) : 0;  // a failed run disqualifies
  auto const best = std::max_element(runs.begin(), runs.end(),
                                     [](candidate const& a, candidate const& b) { return a.median < b.median; });
  auto const model_run = std::find_if(runs.begin(), runs.end(), [](candidate const& e) { return e.model; });
  std::printf("%10s %10s %8s %12s %s\n", "chunk", "pipe", "threads", "GiB/s", "");
  for (candidate const& e : runs) {
    auto const [lo, hi] = std::minmax_element(e.rates.begin(), e.rates.end());
    std::printf("%7zu KiB %6zu KiB %8u %12.2f  (%.2f-%.2f)%s%s\n", e.c.chunk_bytes / KiB, e.c.pipe_size / KiB,
                e.c.threads, e.median, e.rates.empty() ? 0.0 : *lo, e.rates.empty() ? 0.0 : *hi,
                e.model ? "  model" : "", &e == &*best ? "  best" : "");
  }
  if (best->median <= 0) {
    std::fprintf(stderr, "fizzgen tune: no candidate completed every round; nothing stored\n");
    return 1;
  }
  stored_plan p;
  p.machine = m;
  p.chunk_bytes = best->c.chunk_bytes;
  p.pipe_bytes = best->c.pipe_size;
  p.threads = best->c.threads;
  p.gib_per_second = best->median;
  p.model_gib_per_second = model_run->median;
  p.tuned = utc_text(std::time(nullptr));
  std::printf("\nbest: %zu KiB chunks, pipe %zu KiB, %u threads: %.2f GiB/s, %.2fx the model's choice\n",
              p.chunk_bytes / KiB, p.pipe_bytes / KiB, p.threads, p.gib_per_second,
              p.model_gib_per_second > 0 ? p.gib_per_second / p.model_gib_per_second : 0.0);
  if (t.dry_run) {
    std::printf("not stored (--dry-run)\n");
    return failures == 0 ? 0 : 1;
  }
  std::string error;
  if (!save_plan(path, p, error)) {
    std::fprintf(stderr, "fizzgen tune: cannot store the plan: %s\n", error.c_str());
    return 1;
  }
  std::printf("stored in %s\n", path.c_str());
  return failures == 0 ? 0 : 1;
}

}  // namespace fizzgen::bench
