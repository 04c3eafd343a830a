#include "cli/stream_cmd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>

#include "cli/args.hpp"
#include "cli/progress.hpp"
#include "cli/signals.hpp"
#include "cli/stats.hpp"
#include "engine/cpus.hpp"
#include "engine/plan.hpp"
#include "engine/reuse_monitor.hpp"
#include "engine/run.hpp"
#include "output/sink.hpp"

namespace fizzgen::cli {
namespace {

/// Every CPU this process may use, except one when fd 1 is a pipe or a socket: then a reader (pv,
/// a forwarder) needs a CPU of its own, and the workers, one fewer, are pinned and poll the pipe.
/// Measured on 2 CPUs into pv (bench/pipe_bench.sh, three runs): 1 worker 31.4-32.0 GiB/s, 2
/// workers 20.9-21.4.
/// A stored plan's thread count was measured into a pipe: files and terminals keep the default.
bool stdout_is_pipe() {
  struct stat st {};
  return ::fstat(STDOUT_FILENO, &st) == 0 && S_ISFIFO(st.st_mode);
}

/// Standard output is a pipe or a socket: a reader on this machine may need a CPU.
bool output_has_reader(bool generate_only) {
  struct stat st {};
  return !generate_only && ::fstat(STDOUT_FILENO, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/// The most workers that leave a reader a CPU of its own: one fewer than the CPUs, at least one.
unsigned workers_beside_reader() {
  auto const n = static_cast<unsigned>(allowed_cpus().size());
  return n <= 1 ? 1 : n - 1;
}

unsigned default_threads(bool generate_only) {
  return output_has_reader(generate_only) ? workers_beside_reader()
                                          : std::max<unsigned>(1, static_cast<unsigned>(allowed_cpus().size()));
}

/// FIZZGEN_EXACT_THREADS=1: run as many workers as asked for even where they leave the reader no
/// CPU (tests of the hand-off between workers, on machines with few CPUs).
bool exact_threads() {
  char const* v = std::getenv("FIZZGEN_EXACT_THREADS");
  return v != nullptr && v[0] == '1';
}

reuse_policy parse_reuse(std::string const& text) {
  if (text == "auto") return reuse_policy::automatic;
  if (text == "never") return reuse_policy::never;
  if (text == "always") return reuse_policy::always;
  throw std::invalid_argument("--reuse: '" + text + "' is not a policy (use auto, never or always)");
}

}  // namespace

void add_stream_options(CLI::App& app, stream_text& t) {
  app.add_option("-n,--count", t.count, "Stop after N lines (10K = 10240 lines, 1KB = 1000: see Sizes)")
      ->type_name("N");
  app.add_option("-c,--bytes", t.bytes, "Stop after exactly N bytes, even mid-line (1M, 1MB...: see Sizes)")
      ->type_name("N");
  app.add_option("--rate", t.rate,
                 "Write at most R bytes per second (K, M, G...: 100M), in pieces of R/100 bytes (at most half a "
                 "chunk) so any whole second keeps the rate; no catching up after the reader stalls")
      ->type_name("R");
  app.add_option("--duration", t.duration,
                 "Stop after T (500ms, 3s, 2m, 1h; bare: seconds) at the next piece or chunk; exit 0")
      ->type_name("T");
  app.add_option("--write-size", t.write_size,
                 "Cut the stream into write(2) calls of exactly these sizes: N, a list A,B,C (repeated) or "
                 "random:A..B (seeded); the output then copies (write) instead of vmsplice")
      ->type_name("SIZES");
  app.add_option("--stall", t.stall,
                 "Pause the writer for T after every N bytes (1M:300ms), or at points drawn with the seed "
                 "N bytes apart on average (random:1M:300ms)")
      ->type_name("N:T");
  app.add_option("--burst", t.burst,
                 "Write in bursts: full speed (or --rate) for ON, then nothing for OFF, again and again "
                 "(100ms/2s)")
      ->type_name("ON/OFF");
  app.add_option("--seed", t.seed,
                 "Seed for random choices (--write-size random:..., --stall random:...; default: a fresh one, "
                 "printed by --stats)")
      ->type_name("S");
  app.add_option("-j,--threads", t.threads,
                 "Worker threads (default: the CPUs this process may use, less one for the reader when "
                 "the output is a pipe or a socket, which is also the most that work there: more would "
                 "leave the reader no CPU and only wait; 1 for yes, whose chunks never change)")
      ->type_name("N");
  app.add_option("--reuse", t.reuse,
                 "When a buffer handed to the pipe may be rewritten: auto (default: in place while the "
                 "pipe's readers have no pipe or socket to forward our pages into, else fresh pages), "
                 "never (fresh pages every time) or always (in place once it has left our pipe: fastest, "
                 "wrong for readers that forward pages with splice, like pv | cat)")
      ->type_name("POLICY");
  app.add_option("--pipe-size", t.pipe_size,
                 "Pipe size to ask for (default: one chunk, from the L2 cache); above what the system allows "
                 "(fs.pipe-max-size), the largest size allowed; --stats says which")
      ->type_name("N");
  auto* gen_only = app.add_flag("--generate-only", t.generate_only,
                                "Measure generation alone: fill buffers, hand them to a sink that only counts");
  app.add_flag("--pipe-only", t.pipe_only, "Measure the pipe alone: fill buffers once, vmsplice them again and again")
      ->excludes(gen_only);
  app.add_flag("--no-pin", t.no_pin,
               "Never pin workers (by default each is pinned to its own CPU when a CPU stays free for the reader)");
  app.add_flag("--stats", t.stats, "Print throughput, paths taken and per-worker times on stderr at the end");
  app.add_option("--stats-json", t.stats_json, "Write the same statistics as JSON to FILE")->type_name("FILE");
  app.add_flag("--progress", t.progress,
               "Show a live line on stderr (bytes, elapsed, rate, lines; percent and ETA when --count, --to or "
               "--bytes says where it ends) a few times a second, fitted to the terminal's width; "
               "--progress=WHEN: auto (plain --progress: when stderr is a terminal), force (always) or never");
  // Hidden: fizzgen bench sweeps it. Bytes per chunk, about (default 1M).
  app.add_option("--chunk-bytes", t.chunk_bytes, "Bytes per chunk, about")->type_name("N")->group("");
  // Hidden: buffers per worker instead of the engine's choice, to measure what the choice costs.
  app.add_option("--buffers", t.buffers, "Buffers per worker")->type_name("N")->group("");
}

void add_rule_options(CLI::App& app, fizzbuzz_text& t) {
  app.add_option("--from", t.from, "First number, any length (default 1)")->type_name("N");
  app.add_option("--rule", t.rules,
                 "D:WORD - print WORD on multiples of D; repeatable, words concatenate in the order given "
                 "(default --rule 3:Fizz --rule 5:Buzz)")
      ->type_name("D:WORD")
      ->allow_extra_args(false);
}

rule_set to_rules(std::vector<std::string> const& texts) {
  if (texts.empty()) return classic_rules();
  rule_set rules;
  for (auto const& t : texts) {
    rule_text r = parse_rule(t);
    rules.push_back({r.divisor, std::move(r.word)});
  }
  return rules;
}

std::optional<std::uint64_t> size_option(char const* name, std::string const& text) {
  if (text.empty()) return std::nullopt;
  return parse_size(name, text);
}

stream_sizes sizes_for(stream_text const& t, stream_kind kind, bool tunable) {
  stream_sizes s = size_stream(kind, topology().caches, pipe_max_size());
  // A plan was measured end to end: the measurement modes keep to the model.
  if (tunable && kind == stream_kind::rewritten && !t.generate_only && !t.pipe_only) {
    plan_lookup const found = find_plan(plan_path(), this_machine());
    if (found.plan) {
      s.chunk_bytes = found.plan->chunk_bytes;
      s.pipe_bytes = found.plan->pipe_bytes;
      s.threads = found.plan->threads;
      s.why = found.note + ": " + std::to_string(s.chunk_bytes / 1024) + " KiB chunks, pipe " +
              std::to_string(s.pipe_bytes / 1024) + " KiB, " + std::to_string(s.threads) + " threads";
    } else if (!found.note.empty()) {
      s.why += "; " + found.note;
    }
  }
  if (!t.chunk_bytes.empty()) {
    std::uint64_t const n = parse_size("--chunk-bytes", t.chunk_bytes);
    if (n < 4096 || n > (std::uint64_t{1} << 28)) throw std::invalid_argument("--chunk-bytes: must be from 4K to 256M");
    s.chunk_bytes = static_cast<std::size_t>(n);
    s.why = "--chunk-bytes " + t.chunk_bytes + "; otherwise " + s.why;
  }
  if (!t.pipe_size.empty()) {
    std::uint64_t const n = parse_size("--pipe-size", t.pipe_size);
    if (n == 0 || n > (1u << 30)) throw std::invalid_argument("--pipe-size: must be from 1 to 1G");
    s.pipe_bytes = static_cast<std::size_t>(n);
    s.why = "--pipe-size " + t.pipe_size + "; " + s.why;
  }
  return s;
}

std::optional<std::uint64_t> rate_option(std::string const& text) {
  if (text.empty()) return std::nullopt;
  std::uint64_t const rate = parse_size("--rate", text);
  if (rate == 0) throw std::invalid_argument("--rate: '0' must be at least 1 byte per second");
  return rate;
}

/// --seed, or a fresh seed.
std::uint64_t seed_option(stream_text const& t) {
  return t.seed.empty() ? (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}()
                        : parse_size("--seed", t.seed);
}

/// --write-size; `seeded` set when it draws with `seed`.
std::optional<write_pattern> write_size_option(stream_text const& t, std::uint64_t seed, bool& seeded) {
  if (t.write_size.empty()) return std::nullopt;
  write_sizes_text const w = parse_write_sizes(t.write_size);
  if (!w.list.empty()) return write_pattern(std::vector<std::size_t>(w.list.begin(), w.list.end()));
  seeded = true;
  return write_pattern(static_cast<std::size_t>(w.lo), static_cast<std::size_t>(w.hi), seed);
}

/// A duration of an option that must be more than 0.
std::chrono::steady_clock::duration positive_duration(char const* option, std::string const& whole,
                                                      std::string_view text) {
  std::chrono::nanoseconds const d = parse_duration(option, text);
  if (d.count() == 0) throw std::invalid_argument(std::string(option) + ": '" + whole + "' needs a time above 0");
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(d);
}

/// --stall N:T | random:N:T and --burst ON/OFF; `seeded` set when stall points draw with `seed`.
pause_plan pause_options(stream_text const& t, std::uint64_t seed, bool& seeded) {
  pause_plan p;
  if (!t.stall.empty()) {
    std::string_view spec = t.stall;
    bool const random = spec.rfind("random:", 0) == 0;
    if (random) spec.remove_prefix(7);
    std::size_t const colon = spec.find(':');
    if (colon == std::string_view::npos)
      throw std::invalid_argument("--stall: '" + t.stall + "' is not N:T or random:N:T (e.g. 1M:300ms)");
    std::uint64_t const every = parse_size("--stall", std::string(spec.substr(0, colon)));
    if (every == 0) throw std::invalid_argument("--stall: '" + t.stall + "' needs a byte count above 0");
    p.stall_every = every;
    p.stall = positive_duration("--stall", t.stall, spec.substr(colon + 1));
    if (random) {
      p.stall_seed = seed;
      seeded = true;
    }
  }
  if (!t.burst.empty()) {
    std::size_t const slash = t.burst.find('/');
    if (slash == std::string::npos)
      throw std::invalid_argument("--burst: '" + t.burst + "' is not ON/OFF (e.g. 100ms/2s)");
    std::string_view const spec = t.burst;
    p.burst_on = positive_duration("--burst", t.burst, spec.substr(0, slash));
    p.burst_off = positive_duration("--burst", t.burst, spec.substr(slash + 1));
  }
  return p;
}

std::optional<std::chrono::steady_clock::duration> duration_option(std::string const& text) {
  if (text.empty()) return std::nullopt;
  std::chrono::nanoseconds const d = parse_duration("--duration", text);
  if (d.count() == 0) throw std::invalid_argument("--duration: '" + text + "' must be more than 0");
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(d);
}

kernel_arch const& choose_arch(std::string const& name) {
  // --arch first; else FIZZGEN_ARCH, refused the same way (a typo there must not pass unnoticed).
  std::string const env = [] {
    char const* v = std::getenv("FIZZGEN_ARCH");
    return std::string(v != nullptr ? v : "");
  }();
  std::string const source = name.empty() ? "FIZZGEN_ARCH" : "--arch";
  std::string const chosen = name.empty() ? env : name;
  if (chosen.empty()) return default_arch();
  kernel_arch const* a = find_arch(chosen);
  if (a == nullptr) throw std::invalid_argument(source + ": '" + chosen + "' is not an arch (see --list-archs)");
  if (!a->available) throw std::invalid_argument(source + ": this CPU cannot run " + chosen + " (see --list-archs)");
  return *a;
}

window parse_window(fizzbuzz_text const& f, stream_text const& t) {
  window w{*decimal::parse(parse_positive("--from", f.from)), size_option("--count", t.count)};
  if (!f.to.empty()) {
    decimal const to = *decimal::parse(parse_positive("--to", f.to));
    if (to < w.from) throw std::invalid_argument("--to: " + f.to + " is below --from " + f.from);
    // More than 2^64-1 lines can never be written, so such a window is as good as unbounded.
    if (auto const span = to.minus(w.from); span && *span != UINT64_MAX) w.lines = *span + 1;
  }
  return w;
}

/// Streams gen to fd 1 (or to a counting sink) and turns the outcome into an exit status.
int stream(generator const& gen, std::string_view arch, stream_text const& t, std::optional<std::uint64_t> byte_limit,
           stream_sizes const& sizes) {
  bool const show_progress = want_progress(t.progress, STDERR_FILENO);
  run_options options;
  // A constant stream costs only its syscalls, which one thread issues best: more would only wait.
  options.threads = !t.threads.empty()                       ? parse_threads(t.threads)
                    : sizes.threads != 0 && stdout_is_pipe() ? sizes.threads
                    : gen.constant()                         ? 1
                                                             : default_threads(t.generate_only);
  // Workers that leave the reader no CPU of its own wait for their turns while it runs: measured
  // on 2 CPUs into pv, 2 workers ran at 0.56x and 7 at 0.46x of one. So into a pipe or socket at
  // most one worker fewer than the CPUs works, however many were asked for (--stats says so).
  unsigned const asked = options.threads;
  if (output_has_reader(t.generate_only) && !exact_threads())
    options.threads = std::min(options.threads, workers_beside_reader());
  options.byte_limit = byte_limit;
  options.rate = rate_option(t.rate);
  options.duration = duration_option(t.duration);
  std::uint64_t const seed = seed_option(t);
  bool seeded = false;
  options.write_sizes = write_size_option(t, seed, seeded);
  options.pauses = pause_options(t, seed, seeded);
  seeded = seeded || t.payload_seed;
  if (!t.seed.empty() && !seeded)
    throw std::invalid_argument("--seed: only --write-size random:... and --stall random:... use a seed");
  options.reuse = parse_reuse(t.reuse);
  options.pipe_only = t.pipe_only;
  if (!t.buffers.empty()) {
    std::uint64_t const n = parse_size("--buffers", t.buffers);
    if (n < 2 || n > 64) throw std::invalid_argument("--buffers: must be from 2 to 64");
    options.buffers_per_worker = static_cast<unsigned>(n);
  }
  // Pinned workers on every CPU leave the reader (pv...) no CPU of its own, and the scheduler can
  // no longer move a worker away from it: measured here, 2 workers pinned on 2 CPUs ran at half the
  // speed of the same workers unpinned. So pin only when a CPU stays free, or when nothing reads.
  std::size_t const cpus = allowed_cpus().size();
  options.pin = !t.no_pin && (t.generate_only || options.threads < cpus);
  // Polling a full pipe pays only when a core is left over for it besides the workers.
  bool const spin = options.threads < cpus;
  std::unique_ptr<sink> out;
  try {
    out = t.generate_only ? make_null_sink()
                          : open_sink(STDOUT_FILENO, sizes.pipe_bytes, spin, options.write_sizes.has_value());
  } catch (std::exception const& e) {
    std::fprintf(stderr, "fizzgen: %s\n", e.what());
    return 1;
  }
  // Each worker's ring: the chunks emitted after a buffer must fill the pipe the kernel granted.
  if (options.buffers_per_worker == 0)
    options.buffers_per_worker =
        ring_buffers(std::max<std::size_t>(out->pipe_size(), sizes.chunk_bytes), sizes.chunk_bytes, options.threads,
                     options.reuse == reuse_policy::automatic && sizes.spare_chunk);
  // Signals stop the run cleanly (statistics still printed); created before any other thread so
  // that every thread inherits the blocked signal mask.
  signal_guard signals;
  options.stop = signals.token();
  // auto needs to know who reads the pipe; only a pipe that references our pages needs asking.
  std::optional<reuse_monitor> monitor;
  // A constant stream (yes) never rewrites a buffer: nothing to decide.
  if (options.reuse == reuse_policy::automatic && out->shares_pages() && !t.pipe_only && !gen.constant()) {
    monitor.emplace(STDOUT_FILENO, *out);
    options.monitor = &*monitor;
  }
  // Created after the signal guard: its thread inherits the blocked signals.
  progress_counter progress;
  std::optional<progress_display> display;
  if (show_progress) {
    options.progress = &progress;
    display.emplace(progress, STDERR_FILENO, signals.token(), progress_total{byte_limit, gen.total_lines()});
  }
  run_report const report = run(gen, *out, options);
  if (display) display->finish();  // before the statistics, which would otherwise share its line

  run_setup setup;
  setup.mode = t.generate_only ? "generate-only" : t.pipe_only ? "pipe-only" : "stream";
  setup.threads_asked = asked;
  setup.arch = std::string(arch);
  setup.output_path = std::string(out->path());
  setup.pipe_size = out->pipe_size();
  setup.sizing = sizes.why;
  setup.rate = options.rate.value_or(0);
  setup.write_size = t.write_size;
  setup.seed = seed;
  setup.seeded = seeded;
  setup.stall = t.stall;
  setup.burst = t.burst;
  setup.duration_seconds = options.duration ? std::chrono::duration<double>(*options.duration).count() : 0;
  setup.pipe_size_asked = sizes.pipe_bytes;
  setup.spin = spin && out->pipe_size() > 0;
  setup.reuse = out->shares_pages() ? std::string(to_string(options.reuse)) : "n/a (the output copies)";
  if (monitor) {
    // The path this reader gets: in place when an epoch opened and buffers were rewritten in it,
    // or the newest scan found the readers safe (processes created elsewhere may have ended
    // epochs: the findings follow, and each worker says where its buffers went).
    std::uint64_t reused = 0;
    for (worker_stats const& w : report.workers) reused += w.reused;
    bool const in_place = monitor->epochs() > 0 && (reused > 0 || monitor->readers_safe());
    setup.reuse += in_place ? " (in place: " + monitor->safe_why() : " (fresh pages: " + monitor->why();
    setup.reuse += "; " + std::to_string(monitor->scans()) + " scans of /proc, " + std::to_string(monitor->rechecks()) +
                   " re-checks (" + std::to_string(std::lround(monitor->recheck_seconds() * 1e3)) + " ms), " +
                   std::to_string(monitor->epochs()) + " safe epochs";
    std::string ended;
    auto const breaks = monitor->breaks();
    for (std::size_t i = 0; i < breaks.size(); ++i)
      if (breaks[i] != 0)
        ended += (ended.empty() ? "" : ", ") + std::string(to_string(static_cast<taint>(i))) + " " +
                 std::to_string(breaks[i]);
    setup.reuse += (ended.empty() ? "" : "; unsafe findings: " + ended) + ")";
  }
  if (t.stats) print_stats(stderr, setup, report);
  if (!t.stats_json.empty() && !write_stats_json(t.stats_json, setup, report))
    std::fprintf(stderr, "fizzgen: %s: %s\n", t.stats_json.c_str(), std::strerror(errno));
  if (monitor) {
    // The stream is over: the reader sees its end now, not after the monitor's teardown (closing
    // its inotify descriptor waits for an RCU grace period, about 20 ms here).
    if (int const null = ::open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) {
      ::dup2(null, STDOUT_FILENO);
      ::close(null);
    }
    monitor.reset();
  }

  signals.finish();  // a signal arrived: end the process with it, now that the statistics are out
  return exit_status(report.status, report.error);
}

int exit_status(emit_status status, std::string const& error) {
  switch (status) {
    case emit_status::ok:
      return 0;
    case emit_status::reader_gone:
      std::signal(SIGPIPE, SIG_DFL);
      std::raise(SIGPIPE);
      return 141;
    case emit_status::failed:
      break;
  }
  std::fprintf(stderr, "fizzgen: %s\n", error.c_str());
  return 1;
}

}  // namespace fizzgen::cli
