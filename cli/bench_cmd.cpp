#include "cli/bench_cmd.hpp"

#include <cstdio>
#include <stdexcept>

#include "cli/args.hpp"
#include "help_text.hpp"  // footer::*: docs/help/*.txt, embedded by cmake/help_text.cmake
#include "report/report.hpp"

namespace fizzgen::cli {
void add_bench_command(CLI::App& app, bench_command& b) {
  b.app = app.add_subcommand("bench",
                             "Measure generation alone, the pipe alone and end to end, across threads and "
                             "chunk and pipe sizes; report medians and the machine");
  b.app->add_flag("--quick", b.run.quick, "Fewer sizes, runs of 2 GiB: well under a minute on 2 CPUs");
  add_json_option(*b.app, b.json, "--json",
                  "Also write every result as JSON to FILE (for bench/plot.sh); '-' or no FILE: standard "
                  "output, and the table goes to standard error");
  add_size_option(*b.app, "--reps", b.run.reps, "Repetitions of each configuration (default 5)",
                  size_value(1, 1000, "must be from 1 to 1000"));
  add_size_option(*b.app, "--bytes", b.bytes, "Bytes per run (default 4G, 2G with --quick; a size, as below)",
                  size_value(1, UINT64_MAX, "must be at least 1"));
  add_size_option(*b.app, "--timeout", b.timeout, "Seconds a run may take before it is killed and counted failed",
                  size_value(1, UINT64_MAX, "must be at least 1"), "S");
  b.app
      ->add_option("--only", b.run.only,
                   "Run only these sweeps: threads, pipe_size, chunk_bytes, progress (repeatable or comma separated)")
      ->type_name("SWEEP")
      ->delimiter(',')
      ->check(choice_check({"threads", "pipe_size", "chunk_bytes", "progress"}, "sweep"));
  b.app->footer(with_sizes(footer::fizzgen_bench));
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
