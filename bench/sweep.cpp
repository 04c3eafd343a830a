#include "bench/sweep.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <stdexcept>
#include <vector>

#include "bench/child.hpp"
#include "engine/cpus.hpp"
#include "engine/plan.hpp"
#include "engine/sizing.hpp"
#include "generators/arch.hpp"

#ifndef FIZZGEN_VERSION
#define FIZZGEN_VERSION "unknown"
#endif

namespace fizzgen::bench {
namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

/// The chunk and pipe sizes fizzgen picks on this machine without options (engine/sizing.hpp's
/// model, as the measurement modes use it): the rows that show what a user runs. Fixed 1 MiB sizes
/// once stood here, and on a Xeon with 2 MiB of L2, where the stream runs 512 KiB chunks, they put
/// those rows out of L2 (generate-only, one thread: 27.6 GiB/s against 47.9 for the stream's own).
stream_sizes const& defaults() {
  static stream_sizes const s = size_stream(stream_kind::rewritten, topology().caches, pipe_max_size());
  return s;
}

/// `sizes` with `also` among them, in order, once.
std::vector<std::size_t> with(std::vector<std::size_t> sizes, std::size_t also) {
  if (std::find(sizes.begin(), sizes.end(), also) == sizes.end()) sizes.push_back(also);
  std::sort(sizes.begin(), sizes.end());
  return sizes;
}

/// What the machine is: printed above the table and kept in the JSON.
struct machine_info {
  std::string cpu_model, kernel, thp, arch;
  std::size_t cpus_allowed = 0;
  long cpus_online = 0;
  std::size_t pipe_max_size = 0;
};

std::string first_line(std::string const& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

machine_info describe_machine() {
  machine_info m;
  m.cpu_model = this_machine().cpu;
  utsname u{};
  if (::uname(&u) == 0) m.kernel = std::string(u.release) + " " + u.machine;
  // "always [madvise] never": the bracketed word is the mode in force.
  std::string const thp = first_line("/sys/kernel/mm/transparent_hugepage/enabled");
  std::size_t const open = thp.find('['), close = thp.find(']');
  m.thp = open != std::string::npos && close > open ? thp.substr(open + 1, close - open - 1) : "unknown";
  m.pipe_max_size = this_machine().pipe_max;
  m.cpus_allowed = std::max<std::size_t>(1, allowed_cpus().size());
  m.cpus_online = ::sysconf(_SC_NPROCESSORS_ONLN);
  m.arch = std::string(default_arch().name);
  return m;
}

/// One configuration of the plan and what its runs gave.
struct entry {
  config c;
  std::vector<std::string> sweeps;  ///< the plots it belongs to: threads, pipe_size, chunk_bytes, progress
  std::vector<run_result> runs;
};

std::string key(config const& c) {
  return std::string(to_string(c.what)) + "/" + c.consumer + "/" + std::to_string(c.threads) + "/" +
         std::to_string(c.chunk_bytes) + "/" + std::to_string(c.pipe_size) + "/" + (c.progress ? "p" : "");
}

/// Thread counts: 1..CPUs (powers of two beyond 8), then an oversubscribed count.
std::vector<unsigned> thread_counts(std::size_t cpus) {
  std::vector<unsigned> t;
  for (unsigned n = 1; n <= cpus; n = n < 8 ? n + 1 : n * 2) t.push_back(n);
  if (t.back() != cpus) t.push_back(static_cast<unsigned>(cpus));
  t.push_back(static_cast<unsigned>(std::min<std::size_t>(2 * cpus, 1024)));
  return t;
}

std::vector<entry> plan(std::size_t cpus, bool quick, std::size_t pipe_max) {
  std::vector<entry> plan;
  std::map<std::string, std::size_t> index;
  auto add = [&](config const& c, char const* sweep) {
    auto const [it, fresh] = index.emplace(key(c), plan.size());
    if (fresh) plan.push_back({c, {}, {}});
    plan[it->second].sweeps.push_back(sweep);
  };
  auto const all = static_cast<unsigned>(cpus);
  auto make = [](measurement m, char const* consumer, unsigned t, std::size_t chunk, std::size_t pipe) {
    return config{m, consumer, t, chunk, pipe, false};
  };
  std::size_t const chunk0 = defaults().chunk_bytes, pipe0 = defaults().pipe_bytes;
  for (unsigned t : thread_counts(cpus)) {
    add(make(measurement::generate_only, "", t, chunk0, pipe0), "threads");
    add(make(measurement::pipe_only, "splice", t, chunk0, pipe0), "threads");
    add(make(measurement::end_to_end, "splice", t, chunk0, pipe0), "threads");
    add(make(measurement::end_to_end, "read", t, chunk0, pipe0), "threads");
  }
  std::vector<std::size_t> pipes{64 * 1024, 256 * 1024, kMiB};
  if (!quick)
    for (std::size_t p : {4 * kMiB, 16 * kMiB})
      if (p <= pipe_max) pipes.push_back(p);  // above fs.pipe-max-size only CAP_SYS_RESOURCE may ask
  for (std::size_t p : with(pipes, pipe0)) {
    add(make(measurement::pipe_only, "splice", all, chunk0, p), "pipe_size");
    add(make(measurement::end_to_end, "splice", all, chunk0, p), "pipe_size");
  }
  std::vector<std::size_t> chunks{256 * 1024, kMiB, 4 * kMiB};
  if (!quick) chunks = {64 * 1024, 256 * 1024, 512 * 1024, kMiB, 2 * kMiB, 4 * kMiB, 16 * kMiB};
  for (std::size_t ch : with(chunks, chunk0)) {
    add(make(measurement::generate_only, "", all, ch, pipe0), "chunk_bytes");
    add(make(measurement::end_to_end, "splice", all, ch, pipe0), "chunk_bytes");
  }
  config with_progress = make(measurement::end_to_end, "splice", all, chunk0, pipe0);
  add(with_progress, "progress");
  with_progress.progress = true;
  add(with_progress, "progress");
  return plan;
}

struct summary {
  std::size_t ok = 0;
  double median = 0, min = 0, max = 0, consumer = 0, wall = 0;
  run_result const* typical = nullptr;  ///< the run nearest the median, for the time split
};

summary summarize(entry const& e) {
  summary s;
  std::vector<double> rates, consumer, wall;
  for (auto const& r : e.runs)
    if (r.ok) {
      rates.push_back(r.gib_per_second);
      consumer.push_back(r.consumer_gib_per_second);
      wall.push_back(r.wall_gib_per_second);
    }
  s.ok = rates.size();
  if (rates.empty()) return s;
  s.median = median_of(rates);
  s.min = *std::min_element(rates.begin(), rates.end());
  s.max = *std::max_element(rates.begin(), rates.end());
  s.consumer = median_of(consumer);
  s.wall = median_of(wall);
  for (auto const& r : e.runs)
    if (r.ok && (s.typical == nullptr ||
                 std::abs(r.gib_per_second - s.median) < std::abs(s.typical->gib_per_second - s.median)))
      s.typical = &r;
  return s;
}

std::string series(config const& c) {
  return c.consumer.empty() ? to_string(c.what) : std::string(to_string(c.what)) + " -> sink --" + c.consumer;
}

std::string size_text(std::size_t n) {
  return n % kMiB == 0 ? std::to_string(n / kMiB) + "M" : std::to_string(n / 1024) + "K";
}

/// Shares of the workers' time: fill / wait for the turn / in the output syscalls.
void time_split(run_result const* r, double out[3]) {
  out[0] = out[1] = out[2] = 0;
  if (r == nullptr) return;
  double const total = r->fill_seconds + r->wait_seconds + r->emit_seconds;
  if (total <= 0) return;
  out[0] = 100 * r->fill_seconds / total;
  out[1] = 100 * r->wait_seconds / total;
  out[2] = 100 * r->emit_seconds / total;
}

/// "auto (in place: readers ...)" -> "auto, in place": the policy and the path it took.
std::string short_reuse(std::string const& reuse) {
  std::string out = reuse.substr(0, reuse.find(' '));
  if (reuse.find("(in place") != std::string::npos) out += " in place";
  if (reuse.find("(fresh pages") != std::string::npos) out += " fresh pages";
  return out;
}

void print_table(std::FILE* out, machine_info const& m, std::vector<entry> const& plan, std::size_t cpus) {
  std::fprintf(out, "%-34s %7s %6s %5s  %7s %15s %8s %8s  %-14s %s\n", "measurement", "threads", "chunk", "pipe",
               "GiB/s", "(min-max)", "/thread", "sink", "fill/wait/emit", "output, reuse");
  for (auto const& e : plan) {
    summary const s = summarize(e);
    double split[3];
    time_split(s.typical, split);
    std::string name = series(e.c) + (e.c.progress ? " +progress" : "");
    std::string threads = std::to_string(e.c.threads) + (e.c.threads > cpus ? "*" : "");
    char range[32], sink[16], pct[32];
    std::snprintf(range, sizeof range, "(%.2f-%.2f)", s.min, s.max);
    std::snprintf(sink, sizeof sink, "%.2f", s.consumer);
    std::snprintf(pct, sizeof pct, "%.0f/%.0f/%.0f%%", split[0], split[1], split[2]);
    std::string path = s.typical ? s.typical->output_path : "-";
    if (s.typical) path += ", " + short_reuse(s.typical->reuse);
    if (s.ok < e.runs.size()) path += "  [" + std::to_string(e.runs.size() - s.ok) + " failed]";
    std::fprintf(out, "%-34s %7s %6s %5s  %7.2f %15s %8.2f %8s  %-14s %s\n", name.c_str(), threads.c_str(),
                 size_text(e.c.chunk_bytes).c_str(), size_text(e.c.pipe_size).c_str(), s.median, range,
                 e.c.threads ? s.median / e.c.threads : 0, e.c.consumer.empty() ? "-" : sink, pct, path.c_str());
  }
  std::fprintf(out, "* oversubscribed: more threads than the %zu CPUs allowed\n", m.cpus_allowed);
}

/// Median of the entry matching c, 0 if absent.
double median_for(std::vector<entry> const& plan, config const& c) {
  for (auto const& e : plan)
    if (key(e.c) == key(c)) return summarize(e).median;
  return 0;
}

std::vector<std::pair<std::string, double>> ratios(std::vector<entry> const& plan, std::size_t cpus) {
  auto const all = static_cast<unsigned>(cpus);
  auto cfg = [&](measurement m, char const* consumer, unsigned t, bool progress = false) {
    return config{m, consumer, t, defaults().chunk_bytes, defaults().pipe_bytes, progress};
  };
  auto ratio = [&](config const& a, config const& b) {
    double const den = median_for(plan, b);
    return den > 0 ? median_for(plan, a) / den : 0;
  };
  config const e2e = cfg(measurement::end_to_end, "splice", all);
  return {
      {"end-to-end (splice) / generate-only", ratio(e2e, cfg(measurement::generate_only, "", all))},
      {"end-to-end (splice) / pipe-only", ratio(e2e, cfg(measurement::pipe_only, "splice", all))},
      {"end-to-end into read / into splice", ratio(cfg(measurement::end_to_end, "read", all), e2e)},
      {"end-to-end oversubscribed / all CPUs",
       ratio(cfg(measurement::end_to_end, "splice", thread_counts(cpus).back()), e2e)},
      {"end-to-end all CPUs / 1 thread", ratio(e2e, cfg(measurement::end_to_end, "splice", 1))},
      {"end-to-end with --progress / without", ratio(cfg(measurement::end_to_end, "splice", all, true), e2e)},
  };
}

json results_json(machine_info const& m, std::vector<entry> const& plan, std::size_t cpus, std::uint64_t bytes,
                  unsigned reps, bool quick) {
  json results = json::array();
  for (entry const& e : plan) {
    summary const s = summarize(e);
    json runs = json::array(), errors = json::array();
    for (auto const& r : e.runs) {
      runs.push_back(r.ok ? r.gib_per_second : 0.0);
      if (!r.ok) errors.push_back(r.error);
    }
    run_result const empty;
    run_result const& t = s.typical ? *s.typical : empty;
    results.push_back({{"series", series(e.c)},
                       {"measurement", to_string(e.c.what)},
                       {"consumer", e.c.consumer.empty() ? "none" : "sink --" + e.c.consumer},
                       {"threads", e.c.threads},
                       {"oversubscribed", e.c.threads > cpus},
                       {"chunk_bytes", e.c.chunk_bytes},
                       {"pipe_size", e.c.pipe_size},
                       {"progress", e.c.progress},
                       {"sweeps", e.sweeps},
                       {"ok_runs", s.ok},
                       {"median_gib_per_second", s.median},
                       {"min_gib_per_second", s.min},
                       {"max_gib_per_second", s.max},
                       {"per_thread_gib_per_second", s.median / e.c.threads},
                       {"consumer_gib_per_second", s.consumer},
                       {"wall_gib_per_second", s.wall},
                       {"runs_gib_per_second", runs},
                       {"fill_seconds", t.fill_seconds},
                       {"wait_seconds", t.wait_seconds},
                       {"emit_seconds", t.emit_seconds},
                       {"output_path", t.output_path},
                       {"reuse", t.reuse},
                       {"pipe_size_granted", t.pipe_size_granted},
                       {"pinned", t.pinned},
                       {"errors", errors}});
  }
  json ratio_members = json::object();
  for (auto const& [name, value] : ratios(plan, cpus))
    if (value > 0) ratio_members[name] = value;  // 0: a sweep that --only left out
  return {
      {"machine",
       {{"cpu_model", m.cpu_model},
        {"cpus_allowed", m.cpus_allowed},
        {"cpus_online", m.cpus_online},
        {"kernel", m.kernel},
        {"thp", m.thp},
        {"pipe_max_size", m.pipe_max_size},
        {"arch", m.arch}}},
      {"settings", {{"bytes_per_run", bytes}, {"reps", reps}, {"quick", quick}}},
      {"defaults", {{"threads", cpus}, {"chunk_bytes", defaults().chunk_bytes}, {"pipe_size", defaults().pipe_bytes}}},
      {"results", results},
      {"ratios", ratio_members}};
}

}  // namespace

int run_bench(settings const& b) {
  unsigned const reps = b.reps;
  std::uint64_t const bytes = b.bytes;
  auto const limit = static_cast<std::uint64_t>(b.timeout.count());

  machine_info const m = describe_machine();
  std::size_t const cpus = m.cpus_allowed;
  std::vector<entry> runs = plan(cpus, b.quick, m.pipe_max_size);
  if (!b.only.empty())
    std::erase_if(runs, [&](entry const& e) {
      return std::none_of(e.sweeps.begin(), e.sweeps.end(), [&](std::string const& s) {
        return std::find(b.only.begin(), b.only.end(), s) != b.only.end();
      });
    });

  interrupt_guard interrupt;
  std::optional<run_dir> files{std::in_place, "fizzgen_bench"};
  std::string const dir = files->path();
  std::string const exe = self_exe();

  std::FILE* const out = b.table;
  std::fprintf(out,
               "fizzgen %s bench: %s; %zu CPUs allowed (%ld online); kernel %s; THP %s; fs.pipe-max-size %zu; "
               "arch %s\n",
               FIZZGEN_VERSION, m.cpu_model.c_str(), m.cpus_allowed, m.cpus_online, m.kernel.c_str(), m.thp.c_str(),
               m.pipe_max_size, m.arch.c_str());
  std::fprintf(out,
               "%zu configurations x %u rounds of %.2f GiB, round-robin; chunk and pipe as the stream sizes them "
               "here unless swept: %s\n\n",
               runs.size(), reps, static_cast<double>(bytes) / (1024.0 * 1024 * 1024), defaults().why.c_str());
  std::fflush(out);
  bool const tty = ::isatty(STDERR_FILENO) == 1;
  bool failed = false;
  for (unsigned r = 0; r < reps && interrupt.received() == 0; ++r)
    for (std::size_t i = 0; i < runs.size() && interrupt.received() == 0; ++i) {
      if (tty) std::fprintf(stderr, "\rbench: round %u/%u, run %zu/%zu ", r + 1, reps, i + 1, runs.size());
      run_result const res = run_once(exe, runs[i].c, bytes, dir, std::chrono::seconds(static_cast<long>(limit)));
      if (interrupt.received() != 0) break;
      if (!res.ok) {
        failed = true;
        std::fprintf(stderr, "%sfizzgen bench: %s: %s\n", tty ? "\n" : "", series(runs[i].c).c_str(),
                     res.error.c_str());
      }
      runs[i].runs.push_back(res);
    }
  if (tty) std::fprintf(stderr, "\r%40s\r", "");
  files.reset();
  if (b.report) {
    json doc = {{"status", interrupt.received() != 0 ? "interrupted" : failed ? "failed" : "ok"}};
    doc.update(results_json(m, runs, cpus, bytes, reps, b.quick));
    if (!b.report(doc)) failed = true;
  }
  interrupt.finish();  // interrupted: the runs' files are gone, the report says so; end by the signal

  print_table(out, m, runs, cpus);
  std::fprintf(out, "\nratios of medians (same run):\n");
  for (auto const& [name, value] : ratios(runs, cpus))
    if (value > 0) std::fprintf(out, "  %-40s %.2f\n", name.c_str(), value);
  return failed ? 1 : 0;
}

}  // namespace fizzgen::bench
