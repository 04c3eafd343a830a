#include "cli/bench_cmd.hpp"

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>
#include <vector>

#include "cli/args.hpp"
#include "cli/bench_child.hpp"
#include "engine/cpus.hpp"
#include "engine/plan.hpp"
#include "generators/arch.hpp"

#ifndef FIZZGEN_VERSION
#define FIZZGEN_VERSION "unknown"
#endif

namespace fizzgen::cli {
namespace {

using bench::config;
using bench::measurement;
using bench::run_result;

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr std::size_t kDefaultChunk = kMiB, kDefaultPipe = kMiB;  // fizzgen's defaults

constexpr char const* kBenchFooter =
    R"(Each run is a child fizzgen with --stats-json; end-to-end and pipe-only runs write into a
child `fizzgen sink` through a pipe. Configurations take turns (round-robin), each --reps times;
the table shows medians (and min-max) of the producer's own rate. Compare ratios within one run:
absolute GiB/s move from run to run on a shared machine.

Sweeps: threads (1 to the CPUs allowed, then one oversubscribed count), pipe size (--pipe-size)
and chunk size (the hidden --chunk-bytes), and end-to-end with and without --progress=force.

bench/plot.sh (installed as /usr/share/fizzgen/plot.sh by the Debian package, which suggests
gnuplot-nox for it) draws the --json results.

Examples:
  fizzgen bench --quick                         well under a minute on 2 CPUs
  fizzgen bench --json bench.json && bench/plot.sh bench.json docs/
  fizzgen bench --reps 9 --bytes 8G             slower, steadier
  fizzgen bench --only progress --reps 15       what --progress costs, end to end)";

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
  return std::string(bench::to_string(c.what)) + "/" + c.consumer + "/" + std::to_string(c.threads) + "/" +
         std::to_string(c.chunk_bytes) + "/" + std::to_string(c.pipe_size) + "/" + (c.progress ? "p" : "");
}

/// Thread counts: 1..CPUs (powers of two beyond 8), then an oversubscribed count.
std::vector<unsigned> thread_counts(std::size_t cpus) {
  std::vector<unsigned> t;
  for (unsigned n = 1; n <= cpus; n = n < 8 ? n + 1 : n * 2) t.push_back(n);
  if (t.back() != cpus) t.push_back(static_cast<unsigned>(cpus));
  t.push_back(static_cast<unsigned>(std::min<std::size_t>(2 * cpus, kMaxThreads)));
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
  for (unsigned t : thread_counts(cpus)) {
    add(make(measurement::generate_only, "", t, kDefaultChunk, kDefaultPipe), "threads");
    add(make(measurement::pipe_only, "splice", t, kDefaultChunk, kDefaultPipe), "threads");
    add(make(measurement::end_to_end, "splice", t, kDefaultChunk, kDefaultPipe), "threads");
    add(make(measurement::end_to_end, "read", t, kDefaultChunk, kDefaultPipe), "threads");
  }
  std::vector<std::size_t> pipes{64 * 1024, 256 * 1024, kMiB};
  if (!quick)
    for (std::size_t p : {4 * kMiB, 16 * kMiB})
      if (p <= pipe_max) pipes.push_back(p);  // above fs.pipe-max-size only CAP_SYS_RESOURCE may ask
  for (std::size_t p : pipes) {
    add(make(measurement::pipe_only, "splice", all, kDefaultChunk, p), "pipe_size");
    add(make(measurement::end_to_end, "splice", all, kDefaultChunk, p), "pipe_size");
  }
  std::vector<std::size_t> chunks{256 * 1024, kMiB, 4 * kMiB};
  if (!quick) chunks = {64 * 1024, 256 * 1024, 512 * 1024, kMiB, 2 * kMiB, 4 * kMiB, 16 * kMiB};
  for (std::size_t ch : chunks) {
    add(make(measurement::generate_only, "", all, ch, kDefaultPipe), "chunk_bytes");
    add(make(measurement::end_to_end, "splice", all, ch, kDefaultPipe), "chunk_bytes");
  }
  config with_progress = make(measurement::end_to_end, "splice", all, kDefaultChunk, kDefaultPipe);
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
  s.median = bench::median_of(rates);
  s.min = *std::min_element(rates.begin(), rates.end());
  s.max = *std::max_element(rates.begin(), rates.end());
  s.consumer = bench::median_of(consumer);
  s.wall = bench::median_of(wall);
  for (auto const& r : e.runs)
    if (r.ok && (s.typical == nullptr ||
                 std::abs(r.gib_per_second - s.median) < std::abs(s.typical->gib_per_second - s.median)))
      s.typical = &r;
  return s;
}

std::string series(config const& c) {
  return c.consumer.empty() ? bench::to_string(c.what)
                            : std::string(bench::to_string(c.what)) + " -> sink --" + c.consumer;
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

std::string quoted(std::string const& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return out + "\"";
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
    return config{m, consumer, t, kDefaultChunk, kDefaultPipe, progress};
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

bool write_json(std::string const& path, machine_info const& m, std::vector<entry> const& plan, std::size_t cpus,
                std::uint64_t bytes, unsigned reps, bool quick) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f,
               "{\n  \"fizzgen_version\": %s,\n  \"machine\": {\"cpu_model\": %s, \"cpus_allowed\": %zu, "
               "\"cpus_online\": %ld, \"kernel\": %s, \"thp\": %s, \"pipe_max_size\": %zu, \"arch\": %s},\n"
               "  \"settings\": {\"bytes_per_run\": %llu, \"reps\": %u, \"quick\": %s},\n"
               "  \"defaults\": {\"threads\": %zu, \"chunk_bytes\": %zu, \"pipe_size\": %zu},\n  \"results\": [\n",
               quoted(FIZZGEN_VERSION).c_str(), quoted(m.cpu_model).c_str(), m.cpus_allowed, m.cpus_online,
               quoted(m.kernel).c_str(), quoted(m.thp).c_str(), m.pipe_max_size, quoted(m.arch).c_str(),
               static_cast<unsigned long long>(bytes), reps, quick ? "true" : "false", cpus, kDefaultChunk,
               kDefaultPipe);
  // One result per line: bench/plot.sh reads them with awk.
  for (std::size_t i = 0; i < plan.size(); ++i) {
    entry const& e = plan[i];
    summary const s = summarize(e);
    std::string sweeps, runs, errors;
    for (auto const& w : e.sweeps) sweeps += (sweeps.empty() ? "" : ", ") + quoted(w);
    for (auto const& r : e.runs) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.4f", r.ok ? r.gib_per_second : 0.0);
      runs += (runs.empty() ? "" : ", ") + std::string(buf);
      if (!r.ok) errors += (errors.empty() ? "" : ", ") + quoted(r.error);
    }
    run_result const empty;
    run_result const& t = s.typical ? *s.typical : empty;
    std::fprintf(
        f,
        "    {\"series\": %s, \"measurement\": %s, \"consumer\": %s, \"threads\": %u, \"oversubscribed\": %s, "
        "\"chunk_bytes\": %zu, \"pipe_size\": %zu, \"progress\": %s, \"sweeps\": [%s], \"ok_runs\": %zu, "
        "\"median_gib_per_second\": %.4f, \"min_gib_per_second\": %.4f, \"max_gib_per_second\": %.4f, "
        "\"per_thread_gib_per_second\": %.4f, \"consumer_gib_per_second\": %.4f, \"wall_gib_per_second\": %.4f, "
        "\"runs_gib_per_second\": [%s], \"fill_seconds\": %.6f, \"wait_seconds\": %.6f, \"emit_seconds\": %.6f, "
        "\"output_path\": %s, \"reuse\": %s, \"pipe_size_granted\": %zu, \"pinned\": %u, \"errors\": [%s]}%s\n",
        quoted(series(e.c)).c_str(), quoted(bench::to_string(e.c.what)).c_str(),
        quoted(e.c.consumer.empty() ? "none" : "sink --" + e.c.consumer).c_str(), e.c.threads,
        e.c.threads > cpus ? "true" : "false", e.c.chunk_bytes, e.c.pipe_size, e.c.progress ? "true" : "false",
        sweeps.c_str(), s.ok, s.median, s.min, s.max, s.median / e.c.threads, s.consumer, s.wall, runs.c_str(),
        t.fill_seconds, t.wait_seconds, t.emit_seconds, quoted(t.output_path).c_str(), quoted(t.reuse).c_str(),
        t.pipe_size_granted, t.pinned, errors.c_str(), i + 1 < plan.size() ? "," : "");
  }
  std::fprintf(f, "  ],\n  \"ratios\": {");
  auto const rs = ratios(plan, cpus);
  char const* sep = "";
  for (auto const& [name, value] : rs)
    if (value > 0) {  // 0: a sweep that --only left out
      std::fprintf(f, "%s\n    %s: %.4f", sep, quoted(name).c_str(), value);
      sep = ",";
    }
  std::fprintf(f, "\n  }\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace

void add_bench_command(CLI::App& app, bench_command& b) {
  b.app = app.add_subcommand("bench",
                             "Measure generation alone, the pipe alone and end to end, across threads and "
                             "chunk and pipe sizes; report medians and the machine");
  b.app->add_flag("--quick", b.quick, "Fewer sizes, runs of 2 GiB: well under a minute on 2 CPUs");
  b.app->add_option("--json", b.json, "Also write every result as JSON to FILE (for bench/plot.sh)")->type_name("FILE");
  b.app->add_option("--reps", b.reps, "Repetitions of each configuration (default 5)")->type_name("N");
  b.app->add_option("--bytes", b.bytes, "Bytes per run (default 4G, 2G with --quick; a size, as below)")
      ->type_name("N");
  b.app->add_option("--timeout", b.timeout, "Seconds a run may take before it is killed and counted failed")
      ->type_name("S");
  b.app
      ->add_option("--only", b.only,
                   "Run only these sweeps: threads, pipe_size, chunk_bytes, progress (repeatable or comma separated)")
      ->type_name("SWEEP")
      ->delimiter(',')
      ->check(CLI::Validator(
          [](std::string const& sweep) -> std::string {
            for (char const* known : {"threads", "pipe_size", "chunk_bytes", "progress"})
              if (sweep == known) return "";
            return "'" + sweep + "' is not a sweep (use threads, pipe_size, chunk_bytes or progress)";
          },
          ""));
  b.app->footer(std::string(kBenchFooter) + "\n\n" + kSizeHelp);
}

int run_bench(bench_command const& b) {
  unsigned const reps = b.reps.empty() ? 5u : static_cast<unsigned>(parse_size("--reps", b.reps));
  if (reps < 1 || reps > 1000) throw std::invalid_argument("--reps: must be from 1 to 1000");
  std::uint64_t const bytes = parse_size("--bytes", b.bytes.empty() ? (b.quick ? "2G" : "4G") : b.bytes);
  if (bytes < 1) throw std::invalid_argument("--bytes: must be at least 1");
  std::uint64_t const limit = parse_size("--timeout", b.timeout);
  if (limit < 1) throw std::invalid_argument("--timeout: must be at least 1");

  // An unwritable --json FILE is better found now than after the runs.
  if (!b.json.empty()) {
    std::FILE* f = std::fopen(b.json.c_str(), "w");
    if (f == nullptr) throw std::runtime_error(b.json + ": " + std::strerror(errno));
    std::fclose(f);
  }

  machine_info const m = describe_machine();
  std::size_t const cpus = m.cpus_allowed;
  std::vector<entry> runs = plan(cpus, b.quick, m.pipe_max_size);
  if (!b.only.empty())
    std::erase_if(runs, [&](entry const& e) {
      return std::none_of(e.sweeps.begin(), e.sweeps.end(), [&](std::string const& s) {
        return std::find(b.only.begin(), b.only.end(), s) != b.only.end();
      });
    });

  std::string const dir = bench::make_run_dir("fizzgen_bench");
  std::string const exe = bench::self_exe();

  std::printf(
      "fizzgen %s bench: %s; %zu CPUs allowed (%ld online); kernel %s; THP %s; fs.pipe-max-size %zu; "
      "arch %s\n",
      FIZZGEN_VERSION, m.cpu_model.c_str(), m.cpus_allowed, m.cpus_online, m.kernel.c_str(), m.thp.c_str(),
      m.pipe_max_size, m.arch.c_str());
  std::printf("%zu configurations x %u rounds of %.2f GiB, round-robin\n\n", runs.size(), reps,
              static_cast<double>(bytes) / (1024.0 * 1024 * 1024));
  std::fflush(stdout);
  bool const tty = ::isatty(STDERR_FILENO) == 1;
  bool failed = false;
  for (unsigned r = 0; r < reps; ++r)
    for (std::size_t i = 0; i < runs.size(); ++i) {
      if (tty) std::fprintf(stderr, "\rbench: round %u/%u, run %zu/%zu ", r + 1, reps, i + 1, runs.size());
      run_result const res =
          bench::run_once(exe, runs[i].c, bytes, dir, std::chrono::seconds(static_cast<long>(limit)));
      if (!res.ok) {
        failed = true;
        std::fprintf(stderr, "%sfizzgen bench: %s: %s\n", tty ? "\n" : "", series(runs[i].c).c_str(),
                     res.error.c_str());
      }
      runs[i].runs.push_back(res);
    }
  if (tty) std::fprintf(stderr, "\r%40s\r", "");
  std::error_code ec;
  std::filesystem::remove_all(dir, ec);

  print_table(stdout, m, runs, cpus);
  std::printf("\nratios of medians (same run):\n");
  for (auto const& [name, value] : ratios(runs, cpus))
    if (value > 0) std::printf("  %-40s %.2f\n", name.c_str(), value);
  if (!b.json.empty() && !write_json(b.json, m, runs, cpus, bytes, reps, b.quick)) {
    std::fprintf(stderr, "fizzgen bench: cannot write %s\n", b.json.c_str());
    return 1;
  }
  return failed ? 1 : 0;
}

}  // namespace fizzgen::cli
