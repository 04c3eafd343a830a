#include "cli/tune_cmd.hpp"

#include "cli/args.hpp"

namespace fizzgen::cli {

void add_tune_command(CLI::App& app, tune_command& t) {
  t.app = app.add_subcommand("tune",
                             "Measure chunk, pipe and thread choices here and store the fastest as this "
                             "machine's plan, which later streams use");
  t.app->add_option("--bytes", t.run.bytes, "Bytes per run (default 2G; K, M, G...)")
      ->type_name("N")
      ->transform(size_value(std::uint64_t{1} << 20, UINT64_MAX, "must be at least 1M"));
  t.app->add_option("--reps", t.run.reps, "Rounds over the candidates; medians are compared (default 3)")
      ->type_name("N")
      ->transform(size_value(1, 100, "must be from 1 to 100"));
  t.app->add_option("--timeout", t.timeout, "Seconds a run may take before it is killed (default 60)")
      ->type_name("S")
      ->transform(size_value(1, UINT64_MAX, "must be at least 1"));
  t.app->add_flag("--dry-run", t.run.dry_run, "Measure and print the table, but store nothing");
  t.app->footer(R"(Each candidate streams FizzBuzz end to end into `fizzgen sink --splice` (pages dropped, as
pv drops them); candidates take turns, --reps rounds, and the one with the best median rate wins.
The plan is stored in $FIZZGEN_PLAN, else $XDG_CACHE_HOME/fizzgen/plan, else ~/.cache/fizzgen/plan,
under the machine it was measured on (CPU model, cache sizes, kernel, fs.pipe-max-size, CPUs
allowed): a stream on another machine, or after any of these changed, ignores it and says so in
--stats. Without a plan, the sizes follow the L2 cache (see --stats). Delete the file to forget it.

Examples:
  fizzgen tune                  about ten seconds on 2 CPUs
  fizzgen tune --dry-run        what would be chosen, nothing stored
  fizzgen --bytes 16G --stats | pv >/dev/null    --stats names the plan in use)");
}

int run_tune(tune_command const& t) {
  bench::tune_settings s = t.run;
  s.timeout = std::chrono::seconds(static_cast<long>(t.timeout));
  return bench::run_tune(s);
}

}  // namespace fizzgen::cli
