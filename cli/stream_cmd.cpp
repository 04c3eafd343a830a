#include "cli/stream_cmd.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <stdexcept>

#include "cli/args.hpp"
#include "engine/cpus.hpp"
#include "engine/plan.hpp"
#include "engine/signals.hpp"
#include "engine/stream.hpp"
#include "output/sink.hpp"
#include "report/interval.hpp"
#include "report/progress.hpp"
#include "report/report.hpp"
#include "report/stats.hpp"

namespace fizzgen::cli {
namespace {

reuse_policy parse_reuse(std::string const& text) {
  if (text == "auto") return reuse_policy::automatic;
  if (text == "never") return reuse_policy::never;
  if (text == "always") return reuse_policy::always;
  throw std::invalid_argument("--reuse: '" + text + "' is not a policy (use auto, never or always)");
}

}  // namespace

void add_stream_options(CLI::App& app, stream_text& t) {
  app.add_option("-n,--count", t.count, "Stop after N lines (10K = 10240 lines, 1KB = 1000: see Sizes)")
      ->type_name("N")
      ->transform(size_value());
  app.add_option("-c,--bytes", t.bytes, "Stop after exactly N bytes, even mid-line (1M, 1MB...: see Sizes)")
      ->type_name("N")
      ->transform(size_value());
  app.add_option("--rate", t.rate,
                 "Write at most R bytes per second (K, M, G...: 100M), in pieces of R/100 bytes (at most half a "
                 "chunk) so any whole second keeps the rate; no catching up after the reader stalls")
      ->type_name("R")
      ->transform(size_value(1, UINT64_MAX, "'0' must be at least 1 byte per second"));
  app.add_option("--duration", t.duration,
                 "Stop after T (500ms, 3s, 2m, 1h; bare: seconds) at the next piece or chunk; exit 0")
      ->type_name("T")
      ->check(duration_check());
  app.add_option("--write-size", t.write_size,
                 "Cut the stream into write(2) calls of exactly these sizes: N, a list A,B,C (repeated) or "
                 "random:A..B (seeded); the output then copies (write) instead of vmsplice")
      ->type_name("SIZES")
      ->check(write_sizes_check());
  app.add_option("--stall", t.stall,
                 "Pause the writer for T after every N bytes (1M:300ms), or at points drawn with the seed "
                 "N bytes apart on average (random:1M:300ms)")
      ->type_name("N:T");
  app.add_option("--burst", t.burst,
                 "Write in bursts: full speed (or --rate) for ON, then nothing for OFF, again and again "
                 "(100ms/2s)")
      ->type_name("ON/OFF");
  app.add_option("--interval", t.interval,
                 "Every T (1s, 500ms), one JSON line on stderr (or --report FILE): bytes, lines, rate and "
                 "stalls over the interval, and the totals; a summary line at the end")
      ->type_name("T");
  app.add_option("--report", t.report, "Where --interval's lines go, instead of stderr")->type_name("FILE");
  app.add_option("--seed", t.seed,
                 "Seed for random choices (--write-size random:..., --stall random:..., yes --line-length "
                 "random:...; default: a fresh one, printed by --stats)")
      ->type_name("S")
      ->transform(size_value());
  app.add_option("-j,--threads", t.threads,
                 "Worker threads (default: the CPUs this process may use, less one for the reader when "
                 "the output is a pipe or a socket, which is also the most that work there: more would "
                 "leave the reader no CPU and only wait; 1 for yes, whose chunks never change)")
      ->type_name("N")
      ->check(threads_check());
  app.add_option("--reuse", t.reuse,
                 "When a buffer handed to the pipe may be rewritten: auto (default: in place while the "
                 "pipe's readers have no pipe or socket to forward our pages into, else fresh pages), "
                 "never (fresh pages every time) or always (in place once it has left our pipe: fastest, "
                 "wrong for readers that forward pages with splice, like pv | cat)")
      ->type_name("POLICY")
      ->check(choice_check({"auto", "never", "always"}, "policy"));
  app.add_option("--pipe-size", t.pipe_size,
                 "Pipe size to ask for (default: one chunk, from the L2 cache); above what the system allows "
                 "(fs.pipe-max-size), the largest size allowed; --stats says which")
      ->type_name("N")
      ->check(size_check(1, std::uint64_t{1} << 30, "must be from 1 to 1G"));
  auto* gen_only = app.add_flag("--generate-only", t.generate_only,
                                "Measure generation alone: fill buffers, hand them to a sink that only counts");
  app.add_flag("--pipe-only", t.pipe_only, "Measure the pipe alone: fill buffers once, vmsplice them again and again")
      ->excludes(gen_only);
  app.add_flag("--no-pin", t.no_pin,
               "Never pin workers (by default each is pinned to its own CPU when a CPU stays free for the reader)");
  app.add_flag("--stats", t.stats, "Print throughput, paths taken and per-worker times on stderr at the end");
  add_json_option(app, t.stats_json, "--json,--stats-json",
                  "Write the same statistics as JSON to FILE, with the version, command line, start time, lines "
                  "and how the run ended; '-' (standard output) only with --generate-only");
  app.add_flag("--progress", t.progress,
               "Show a live line on stderr (bytes, elapsed, rate, lines; percent and ETA when --count, --to or "
               "--bytes says where it ends) a few times a second, fitted to the terminal's width; "
               "--progress=WHEN: auto (plain --progress: when stderr is a terminal), force (always) or never; "
               "numeric: one number a line, the percent when the end is known, else the bytes, as pv -n");
  // Hidden: fizzgen bench sweeps it. Bytes per chunk, about (default 1M).
  app.add_option("--chunk-bytes", t.chunk_bytes, "Bytes per chunk, about")->type_name("N")->group("");
  // Hidden: buffers per worker instead of the engine's choice, to measure what the choice costs.
  app.add_option("--buffers", t.buffers, "Buffers per worker")->type_name("N")->group("");
}

void add_rule_options(CLI::App& app, fizzbuzz_text& t) {
  app.add_option("--from", t.from, "First number, any length (default 1)")->type_name("N")->check(positive_check());
  app.add_option("--rule", t.rules,
                 "D:WORD - print WORD on multiples of D; repeatable, words concatenate in the order given "
                 "(default --rule 3:Fizz --rule 5:Buzz)")
      ->type_name("D:WORD")
      ->allow_extra_args(false)
      ->check(rule_check());
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
    std::uint64_t const n = parse_size("--pipe-size", t.pipe_size);  // 1..1G: size_check
    s.pipe_bytes = static_cast<std::size_t>(n);
    s.why = "--pipe-size " + t.pipe_size + "; " + s.why;
  }
  return s;
}

/// --seed, or a fresh seed.
std::uint64_t seed_option(stream_text const& t) {
  return t.seed ? *t.seed : (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
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
  // > 0: duration_check
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(parse_duration("--duration", text));
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
  window w{*decimal::parse(parse_positive("--from", f.from)), t.count};
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
  // --interval's reports go to stderr, or to --report FILE, opened now like --json's.
  interval_target const intervals_to = open_interval(t.interval, t.report);
  std::optional<std::chrono::steady_clock::duration> const interval = intervals_to.period;
  if (t.stats_json == "-" && !t.generate_only)
    throw std::invalid_argument("--json: standard output carries the stream: give a FILE (or --generate-only)");
  json_report json_out(t.stats_json);  // opened now: a path that cannot be written fails before the run
  stream_overrides o;
  if (t.threads) o.threads = *t.threads;
  o.no_pin = t.no_pin;
  o.generate_only = t.generate_only;
  o.pipe_only = t.pipe_only;
  o.reuse = parse_reuse(t.reuse);
  o.byte_limit = byte_limit;
  o.rate = t.rate;
  o.duration = duration_option(t.duration);
  std::uint64_t const seed = seed_option(t);
  bool seeded = false;
  o.write_sizes = size_pattern_option("--write-size", t.write_size, seed, seeded);
  o.pauses = pause_options(t, seed, seeded);
  seeded = seeded || t.payload_seed;
  if (t.seed && !seeded)
    throw std::invalid_argument("--seed: only --write-size random:... and --stall random:... use a seed");
  if (!t.buffers.empty()) {
    std::uint64_t const n = parse_size("--buffers", t.buffers);
    if (n < 2 || n > 64) throw std::invalid_argument("--buffers: must be from 2 to 64");
    o.buffers_per_worker = static_cast<unsigned>(n);
  }
  // Signals stop the run cleanly (statistics still printed); created before any other thread so
  // that every thread inherits the blocked signal mask.
  signal_guard signals;
  o.stop = signals.token();
  progress_counter progress;
  std::optional<progress_display> display;
  std::optional<interval_report> intervals;
  if (show_progress || interval) {
    o.progress = &progress;
    o.on_start = [&] {
      if (show_progress)
        display.emplace(progress, STDERR_FILENO, signals.token(), progress_total{byte_limit, gen.total_lines()},
                        progress_style_for(t.progress));
      if (interval) intervals.emplace(progress, intervals_to.out(), *interval);
    };
  }
  stream_outcome const r = run_stream(gen, STDOUT_FILENO, sizes, o);
  if (display) display->finish();  // before the statistics, which would otherwise share its line
  bool const reported = !intervals || intervals->finish(run_status(r.report, signals.received()));

  run_setup setup;
  setup.mode = t.generate_only ? "generate-only" : t.pipe_only ? "pipe-only" : "stream";
  setup.threads_asked = r.threads_asked;
  setup.arch = std::string(arch);
  setup.output_path = r.output_path;
  setup.pipe_size = r.pipe_size;
  setup.sizing = sizes.why;
  setup.rate = o.rate.value_or(0);
  setup.write_size = t.write_size;
  setup.seed = seed;
  setup.seeded = seeded;
  setup.stall = t.stall;
  setup.burst = t.burst;
  setup.duration_seconds = o.duration ? std::chrono::duration<double>(*o.duration).count() : 0;
  setup.pipe_size_asked = sizes.pipe_bytes;
  setup.spin = r.spin;
  setup.reuse = r.reuse;
  if (t.stats) print_stats(stderr, setup, r.report);
  std::string const unwritten = json_out.write(stats_json(setup, r.report, r.lines, signals.received()));
  if (!unwritten.empty()) std::fprintf(stderr, "fizzgen: %s\n", unwritten.c_str());

  signals.finish();  // a signal arrived: end the process with it, now that the statistics are out
  int const status = exit_status(r.report.status, r.report.error);
  if (!reported)
    std::fprintf(stderr, "fizzgen: %s: %s\n", t.report.empty() ? "standard error" : t.report.c_str(),
                 std::strerror(EIO));
  return status == 0 && (!unwritten.empty() || !reported) ? 1 : status;
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
