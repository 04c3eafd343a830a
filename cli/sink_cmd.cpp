#include "cli/sink_cmd.hpp"

#include "cli/args.hpp"
#include "help_text.hpp"  // footer::*: docs/help/*.txt, embedded by cmake/help_text.cmake

namespace fizzgen::cli {
void add_sink_command(CLI::App& app, sink_command& s) {
  s.app = app.add_subcommand("sink", "Consume standard input like pv -q >/dev/null, then report bytes, seconds, rate");
  auto* splice = s.app->add_flag("--splice", s.splice,
                                 "splice(2) the pipe into /dev/null: no copy, pages dropped, like pv (default)");
  s.app->add_flag("--read", s.run.read, "read(2) into a buffer: one copy per byte, like cat >/dev/null")
      ->excludes(splice);
  s.app->add_option("--block-size", s.run.block_size, "--read's buffer size (default 128K, like cat)")
      ->type_name("N")
      ->check(size_check(1, std::uint64_t{1} << 30, "must be from 1 to 1G"));
  add_json_option(*s.app, s.run.json, "--json",
                  "Also write the report as JSON to FILE (with the version, command line and start time); "
                  "'-' or no FILE: standard output");
  s.app->add_flag("-q,--quiet", s.run.quiet, "No report on stderr (errors and notes still are)");
  s.app->add_flag("--progress", s.run.progress,
                  "Show a live line on stderr (bytes, elapsed, rate) as the streams do; --progress=WHEN: auto "
                  "(plain --progress: when stderr is a terminal), force (always) or never; numeric: the bytes so "
                  "far, one number a line, as pv -n");
  s.app
      ->add_option("--interval", s.run.interval,
                   "Every T (1s, 500ms), one JSON line on stderr (or --report FILE): bytes received over the "
                   "interval, their rate and the totals, as the streams write theirs; a summary line at the end")
      ->type_name("T")
      ->check(duration_check());
  s.app->add_option("--report", s.run.report, "Where --interval's lines go, instead of stderr")->type_name("FILE");
  s.app->footer(with_sizes(footer::fizzgen_sink));
}

}  // namespace fizzgen::cli
