#include "report/stream_run.hpp"

#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <random>
#include <stdexcept>

#include "engine/cpus.hpp"
#include "engine/plan.hpp"
#include "engine/signals.hpp"
#include "engine/stream.hpp"
#include "parse/values.hpp"
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

/// --duration: more than 0 (duration_check); nullopt when not given.
std::optional<std::chrono::steady_clock::duration> duration_option(std::string const& text) {
  if (text.empty()) return std::nullopt;
  // > 0: duration_check
  return std::chrono::duration_cast<std::chrono::steady_clock::duration>(parse::parse_duration("--duration", text));
}

/// --stall N:T | random:N:T and --burst ON/OFF; `seeded` set when stall points draw with `seed`.
pause_plan pause_options(stream_request const& t, std::uint64_t seed, bool& seeded) {
  pause_plan p;
  if (!t.stall.empty()) {
    parse::stall_text const s = parse::parse_stall(t.stall);
    p.stall_every = s.every;
    p.stall = s.pause;
    if (s.random) {
      p.stall_seed = seed;
      seeded = true;
    }
  }
  if (!t.burst.empty()) {
    parse::burst_text const b = parse::parse_burst(t.burst);
    p.burst_on = b.on;
    p.burst_off = b.off;
  }
  return p;
}

/// --write-size SIZES; `seeded` set when its sizes draw with `seed`.
std::optional<size_pattern> write_sizes(std::string const& text, std::uint64_t seed, bool& seeded) {
  if (text.empty()) return std::nullopt;
  parse::write_sizes_text const w = parse::parse_write_sizes(text);
  seeded = seeded || w.list.empty();
  return size_pattern(w.list, w.lo, w.hi, seed);
}

}  // namespace

stream_sizes sizes_for(stream_request const& t, stream_kind kind, bool tunable) {
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
    std::uint64_t const n = parse::parse_size("--chunk-bytes", t.chunk_bytes);
    if (n < 4096 || n > (std::uint64_t{1} << 28)) throw std::invalid_argument("--chunk-bytes: must be from 4K to 256M");
    s.chunk_bytes = static_cast<std::size_t>(n);
    s.why = "--chunk-bytes " + t.chunk_bytes + "; otherwise " + s.why;
  }
  if (!t.pipe_size.empty()) {
    std::uint64_t const n = parse::parse_size("--pipe-size", t.pipe_size);  // 1..1G: size_check
    s.pipe_bytes = static_cast<std::size_t>(n);
    s.why = "--pipe-size " + t.pipe_size + "; " + s.why;
  }
  return s;
}

/// --seed, or a fresh seed.
std::uint64_t seed_option(stream_request const& t) {
  return t.seed ? *t.seed : (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
}

int stream(generator const& gen, std::string_view arch, stream_request const& t, stream_sizes const& sizes) {
  std::optional<std::uint64_t> const byte_limit = t.bytes;
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
  o.helper = t.helper == "on" ? helper_mode::on : t.helper == "off" ? helper_mode::off : helper_mode::automatic;
  o.idle_poll = t.idle_poll != "off";
  o.byte_limit = byte_limit;
  o.rate = t.rate;
  o.duration = duration_option(t.duration);
  std::uint64_t const seed = seed_option(t);
  bool seeded = false;
  o.write_sizes = write_sizes(t.write_size, seed, seeded);
  o.pauses = pause_options(t, seed, seeded);
  seeded = seeded || t.payload_seed;
  if (t.seed && !seeded)
    throw std::invalid_argument("--seed: only --write-size random:... and --stall random:... use a seed");
  if (!t.buffers.empty()) {
    std::uint64_t const n = parse::parse_size("--buffers", t.buffers);
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
  setup.idle_poll = r.idle_poll;
  setup.idle_poll_why = r.idle_poll_why;
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
