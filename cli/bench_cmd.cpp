#include "cli/bench_cmd.hpp"

#include <cstdio>
#include <stdexcept>

#include "cli/args.hpp"
#include "report/report.hpp"

namespace fizzgen::cli {
namespace {

constexpr char const* kBenchFooter =
    R"(Each run is a child fizzgen with --json; end-to-end and pipe-only runs write into a
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

}  // namespace

void add_bench_command(CLI::App& app, bench_command& b) {
  b.app = app.add_subcommand("bench",
                             "Measure generation alone, the pipe alone and end to end, across threads and "
                             "chunk and pipe sizes; report medians and the machine");
  b.app->add_flag("--quick", b.run.quick, "Fewer sizes, runs of 2 GiB: well under a minute on 2 CPUs");
  add_json_option(*b.app, b.json, "--json",
                  "Also write every result as JSON to FILE (for bench/plot.sh); '-' or no FILE: standard "
                  "output, and the table goes to standard error");
  b.app->add_option("--reps", b.run.reps, "Repetitions of each configuration (default 5)")
      ->type_name("N")
      ->transform(size_value(1, 1000, "must be from 1 to 1000"));
  b.app->add_option("--bytes", b.bytes, "Bytes per run (default 4G, 2G with --quick; a size, as below)")
      ->type_name("N")
      ->transform(size_value(1, UINT64_MAX, "must be at least 1"));
  b.app->add_option("--timeout", b.timeout, "Seconds a run may take before it is killed and counted failed")
      ->type_name("S")
      ->transform(size_value(1, UINT64_MAX, "must be at least 1"));
  b.app
      ->add_option("--only", b.run.only,
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
  bench::settings s = b.run;
  s.bytes = b.bytes.value_or(std::uint64_t{b.run.quick ? 2u : 4u} << 30);
  s.timeout = std::chrono::seconds(static_cast<long>(b.timeout));
  json_report json_out(b.json);                // opened now: a path that cannot be written fails before the runs
  if (json_out.to_stdout()) s.table = stderr;  // standard output carries the JSON alone
  if (json_out.wanted())
    s.report = [&](json const& doc) {
      std::string const unwritten = json_out.write(doc);
      if (!unwritten.empty()) std::fprintf(stderr, "fizzgen bench: %s\n", unwritten.c_str());
      return unwritten.empty();
    };
  return bench::run_bench(s);
}

}  // namespace fizzgen::cli
