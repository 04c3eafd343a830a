#include "cli/stream_cmd.hpp"

#include "cli/args.hpp"

namespace fizzgen::cli {
void add_stream_options(CLI::App& app, stream_request& t) {
  add_size_option(app, "-n,--count", t.count, "Stop after N lines (10K = 10240 lines, 1KB = 1000: see Sizes)");
  add_size_option(app, "-c,--bytes", t.bytes, "Stop after exactly N bytes, even mid-line (1M, 1MB...: see Sizes)");
  add_size_option(app, "--rate", t.rate,
                  "Write at most R bytes per second (K, M, G...: 100M), in pieces of R/100 bytes (at most half a "
                  "chunk) so any whole second keeps the rate; no catching up after the reader stalls",
                  size_value(1, UINT64_MAX, "'0' must be at least 1 byte per second"), "R");
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
  add_size_option(app, "--seed", t.seed,
                  "Seed for random choices (--write-size random:..., --stall random:..., yes --line-length "
                  "random:...; default: a fresh one, printed by --stats)",
                  size_value(), "S");
  app.add_option("-j,--threads", t.threads,
                 "Worker threads (default: the CPUs this process may use, less one for the reader when "
                 "the output is a pipe or a socket, which is also the most that work: more would share "
                 "a CPU and only wait; 1 for yes, whose chunks never change)")
      ->type_name("N")
      ->check(threads_check());
  app.add_option("--reuse", t.reuse,
                 "When a buffer handed to the pipe may be rewritten: auto (default: in place while the "
                 "pipe's readers have no pipe or socket to forward our pages into, else fresh pages), "
                 "never (fresh pages every time) or always (in place once it has left our pipe: fastest, "
                 "wrong for readers that forward pages with splice, like pv | cat)")
      ->type_name("POLICY")
      ->check(choice_check({"auto", "never", "always"}, "policy"));
  app.add_option("--helper", t.helper,
                 "With one worker into a pipe, a thread on the reader's CPU (at idle priority: the reader "
                 "always comes first) works ahead: a helper fills chunks, which the worker emits when they are "
                 "ready and fills itself when not (with --reuse never, on fresh pages it zeroes there). auto "
                 "(default: the worker times the stream with and without it and keeps the faster way, the "
                 "helper only while it fills at least one chunk in eight, measuring again now and then), on "
                 "or off")
      ->type_name("WHEN")
      ->check(choice_check({"auto", "on", "off"}, "choice"));
  app.add_option("--idle-poll", t.idle_poll,
                 "Into a pipe or a socket, ask the kernel to keep idle CPUs polling while the stream runs (a "
                 "CPU latency limit of 0 us through /dev/cpu_dma_latency, dropped when the stream ends), so "
                 "the reader wakes at once for each chunk instead of from a halt: auto (default: when "
                 "/dev/cpu_dma_latency can be written, as root; not for --rate, --stall, --burst; then "
                 "--helper auto starts the helper at rest) or off. --stats says whether it held")
      ->type_name("WHEN")
      ->check(choice_check({"auto", "off"}, "choice"));
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

void add_rule_options(CLI::App& app, std::string& from, std::vector<std::string>& rules) {
  app.add_option("--from", from, "First number, any length; or B^E, B^E+N, B^E-N: 10^20, 2^64-1 (default 1)")
      ->type_name("N")
      ->check(positive_check());
  app.add_option("--rule", rules,
                 "D:WORD - print WORD on multiples of D; repeatable, words concatenate in the order given "
                 "(default --rule 3:Fizz --rule 5:Buzz)")
      ->type_name("D:WORD")
      ->allow_extra_args(false)
      ->check(rule_check());
}

void add_fizzbuzz_options(CLI::App& app, fizzbuzz_text& f, stream_request& t) {
  add_rule_options(app, f.from, f.rules);
  CLI::Option* to = app.add_option("--to", f.to, "Last number, inclusive, as --from reads it (instead of --count)")
                        ->type_name("N")
                        ->check(positive_check());
  add_stream_options(app, t);
  to->excludes(app.get_option("--count"));
}

void add_arch_option(CLI::App& app, std::string& name, std::string const& help) {
  app.add_option("--arch", name, help)->type_name("NAME");
}

}  // namespace fizzgen::cli
