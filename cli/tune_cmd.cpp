#include "cli/tune_cmd.hpp"

#include "cli/args.hpp"
#include "help_text.hpp"  // footer::*: docs/help/*.txt, embedded by cmake/help_text.cmake

namespace fizzgen::cli {

void add_tune_command(CLI::App& app, tune_command& t) {
  t.app = app.add_subcommand("tune",
                             "Measure chunk, pipe and thread choices here and store the fastest as this "
                             "machine's plan, which later streams use");
  add_size_option(*t.app, "--bytes", t.run.bytes, "Bytes per run (default 2G; K, M, G...)",
                  size_value(std::uint64_t{1} << 20, UINT64_MAX, "must be at least 1M"));
  add_size_option(*t.app, "--reps", t.run.reps, "Rounds over the candidates; medians are compared (default 3)",
                  size_value(1, 100, "must be from 1 to 100"));
  add_size_option(*t.app, "--timeout", t.timeout, "Seconds a run may take before it is killed (default 60)",
                  size_value(1, UINT64_MAX, "must be at least 1"), "S");
  t.app->add_flag("--dry-run", t.run.dry_run, "Measure and print the table, but store nothing");
  t.app->footer(footer::fizzgen_tune);
}

int run_tune(tune_command const& t) {
  bench::tune_settings s = t.run;
  s.timeout = std::chrono::seconds(static_cast<long>(t.timeout));
  return bench::run_tune(s);
}

}  // namespace fizzgen::cli
