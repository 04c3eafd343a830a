#include "cli/app.hpp"

#include <unistd.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/check.hpp"
#include "cli/stats.hpp"
#include "engine/cpus.hpp"
#include "engine/run.hpp"
#include "generators/arch.hpp"
#include "generators/fizzbuzz.hpp"
#include "generators/yes.hpp"
#include "output/sink.hpp"

#ifndef FIZZGEN_VERSION
#define FIZZGEN_VERSION "unknown"
#endif

namespace fizzgen::cli {
namespace {

constexpr int kUsageError = 2;

/// Options shared by every stream subcommand, kept as text so that errors name the exact input.
struct stream_text {
  std::string count, bytes, threads, reuse = "auto", pipe_size = "1M", stats_json;
  bool generate_only = false, pipe_only = false, stats = false, no_pin = false;
};

struct fizzbuzz_text {
  std::string from = "1", to;
  std::vector<std::string> rules;
};

void add_stream_options(CLI::App& app, stream_text& t) {
  app.add_option("--count", t.count, "Stop after N lines (suffixes K, M, G... as in GNU head)")->type_name("N");
  app.add_option("--bytes", t.bytes, "Stop after exactly N bytes, even mid-line (K, M, G...)")->type_name("N");
  app.add_option("--threads", t.threads, "Worker threads (default: the CPUs this process may use; 1 for yes, whose chunks never change)")->type_name("N");
  app.add_option("--reuse", t.reuse,
                 "When a buffer handed to the pipe may be rewritten: auto (default: in place while the "
                 "pipe's readers have no pipe or socket to forward our pages into, else fresh pages), "
                 "never (fresh pages every time) or always (in place once it has left our pipe: fastest, "
                 "wrong for readers that forward pages with splice, like pv | cat)")
      ->type_name("POLICY");
  app.add_option("--pipe-size", t.pipe_size, "Pipe size to ask for (default 1M; the granted size is used)")
      ->type_name("N");
  auto* gen_only = app.add_flag("--generate-only", t.generate_only,
                                "Measure generation alone: fill buffers, hand them to a sink that only counts");
  app.add_flag("--pipe-only", t.pipe_only, "Measure the pipe alone: fill buffers once, vmsplice them again and again")
      ->excludes(gen_only);
  app.add_flag("--no-pin", t.no_pin,
               "Never pin workers (by default each is pinned to its own CPU when a CPU stays free for the reader)");
  app.add_flag("--stats", t.stats, "Print throughput, paths taken and per-worker times on stderr at the end");
  app.add_option("--stats-json", t.stats_json, "Write the same statistics as JSON to FILE")->type_name("FILE");
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

unsigned default_threads() {
  auto const n = static_cast<unsigned>(allowed_cpus().size());
  return n == 0 ? 1 : n;
}

reuse_policy parse_reuse(std::string const& text) {
  if (text == "auto") return reuse_policy::automatic;
  if (text == "never") return reuse_policy::never;
  if (text == "always") return reuse_policy::always;
  throw std::invalid_argument("--reuse: '" + text + "' is not a policy (use auto, never or always)");
}

/// Streams gen to fd 1 (or to a counting sink) and turns the outcome into an exit status.
int stream(generator const& gen, std::string_view arch, stream_text const& t, std::optional<std::uint64_t> byte_limit) {
  run_options options;
  // A constant stream costs only its syscalls, which one thread issues best: more would only wait.
  options.threads = !t.threads.empty() ? parse_threads(t.threads) : gen.constant() ? 1 : default_threads();
  options.byte_limit = byte_limit;
  options.reuse = parse_reuse(t.reuse);
  options.pipe_only = t.pipe_only;
  // Pinned workers on every CPU leave the reader (pv...) no CPU of its own, and the scheduler can
  // no longer move a worker away from it: measured here, 2 workers pinned on 2 CPUs ran at half the
  // speed of the same workers unpinned. So pin only when a CPU stays free, or when nothing reads.
  std::size_t const cpus = allowed_cpus().size();
  options.pin = !t.no_pin && (t.generate_only || options.threads < cpus);
  std::uint64_t const pipe_size = parse_size("--pipe-size", t.pipe_size);
  if (pipe_size == 0 || pipe_size > (1u << 30)) throw std::invalid_argument("--pipe-size: must be from 1 to 1G");
  // Polling a full pipe pays only when a core is left over for it besides the workers.
  bool const spin = options.threads < cpus;
  std::unique_ptr<sink> out;
  try {
    out = t.generate_only ? make_null_sink() : open_sink(STDOUT_FILENO, pipe_size, spin);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "fizzgen: %s\n", e.what());
    return 1;
  }
  // auto needs to know who reads the pipe; only a pipe that references our pages needs asking.
  std::optional<reuse_monitor> monitor;
  if (options.reuse == reuse_policy::automatic && out->shares_pages() && !t.pipe_only) {
    monitor.emplace(STDOUT_FILENO);
    options.monitor = &*monitor;
  }
  run_report const report = run(gen, *out, options);

  run_setup setup;
  setup.mode = t.generate_only ? "generate-only" : t.pipe_only ? "pipe-only" : "stream";
  setup.arch = std::string(arch);
  setup.output_path = std::string(out->path());
  setup.pipe_size = out->pipe_size();
  setup.spin = spin && out->pipe_size() > 0;
  setup.reuse = out->shares_pages() ? std::string(to_string(options.reuse)) : "n/a (the output copies)";
  if (monitor) {
    setup.reuse += reuse_monitor::safe(monitor->state()) ? " (in place: " : " (fresh pages: ";
    setup.reuse += monitor->why() + "; " + std::to_string(monitor->inspections()) + " inspections, " +
                   std::to_string(monitor->flips()) + " changes)";
  }
  if (t.stats) print_stats(stderr, setup, report);
  if (!t.stats_json.empty() && !write_stats_json(t.stats_json, setup, report))
    std::fprintf(stderr, "fizzgen: cannot write %s\n", t.stats_json.c_str());

  switch (report.status) {
    case emit_status::ok:
      return 0;
    case emit_status::reader_gone:
      // Die of SIGPIPE like GNU tools, so `set -o pipefail` scripts see the usual 141.
      std::signal(SIGPIPE, SIG_DFL);
      std::raise(SIGPIPE);
      return 141;
    case emit_status::failed:
      break;
  }
  std::fprintf(stderr, "fizzgen: %s\n", report.error.c_str());
  return 1;
}

std::optional<std::uint64_t> size_option(char const* name, std::string const& text) {
  if (text.empty()) return std::nullopt;
  return parse_size(name, text);
}

kernel_arch const& choose_arch(std::string const& name) {
  if (name.empty()) return default_arch();
  kernel_arch const* a = find_arch(name);
  if (a == nullptr) throw std::invalid_argument("--arch: '" + name + "' is not an arch (see --list-archs)");
  if (!a->available) throw std::invalid_argument("--arch: this CPU cannot run " + name + " (see --list-archs)");
  return *a;
}

int list_archs() {
  kernel_arch const& best = default_arch();
  for (auto const& a : kernel_archs())
    std::printf("%-11s %s%s\n", std::string(a.name).c_str(), a.available ? "available" : "not available on this CPU",
                &a == &best ? " (default)" : "");
  return 0;
}

int run_fizzbuzz(fizzbuzz_text const& f, stream_text const& t, std::string const& arch_name) {
  decimal const from = *decimal::parse(parse_positive("--from", f.from));
  rule_set rules = to_rules(f.rules);
  std::optional<std::uint64_t> lines = size_option("--count", t.count);
  if (!f.to.empty()) {
    decimal const to = *decimal::parse(parse_positive("--to", f.to));
    if (to < from) throw std::invalid_argument("--to: " + f.to + " is below --from " + f.from);
    // More than 2^64-1 lines can never be written, so such a window is as good as unbounded.
    if (auto const span = to.minus(from); span && *span != UINT64_MAX) lines = *span + 1;
  }
  kernel_arch const& arch = choose_arch(arch_name);
  fizzbuzz const gen(from, std::move(rules), lines, fizzbuzz::kDefaultChunkBytes, arch);
  return stream(gen, gen.uses_kernel() ? arch.name : "scalar", t, size_option("--bytes", t.bytes));
}

int run_yes(std::vector<std::string> const& words, stream_text const& t) {
  yes const gen(words, size_option("--count", t.count));
  return stream(gen, "none", t, size_option("--bytes", t.bytes));
}

int run_check(fizzbuzz_text const& f) {
  check::options o;
  o.from = parse_positive("--from", f.from);
  for (auto const& text : f.rules) {
    rule_text r = parse_rule(text);
    o.rules.push_back({r.divisor, std::move(r.word)});
  }
  return check::check_main(o, STDIN_FILENO, stdout, stderr);
}

constexpr char const* kFooter = R"(Examples:
  fizzgen --threads 2 | pv >/dev/null         throughput run
  fizzgen --from 100000000000000000000 --count 15
  fizzgen --rule 2:Even --rule 7:Seven --to 14
  fizzgen yes hello world | head -3
  fizzgen --count 10M | fizzgen check         generate and verify

Exit status: 0 done, 1 output or check failure, 2 bad usage.
When the reader goes away fizzgen ends at once, by SIGPIPE, like GNU tools.)";

}  // namespace

int main(int argc, char** argv) {
  // EPIPE and EFBIG come back as errors the engine handles, instead of killing a worker mid-run.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);

  CLI::App app{"fizzgen - FizzBuzz (and yes) into a pipe, as fast as the machine allows, never a wrong byte.\n"
               "With no subcommand it writes the FizzBuzz stream.",
               "fizzgen"};
  app.set_version_flag("--version", "fizzgen " FIZZGEN_VERSION);
  app.footer(kFooter);

  fizzbuzz_text fizz;
  stream_text fizz_stream;
  add_rule_options(app, fizz);
  app.add_option("--to", fizz.to, "Last number, inclusive (instead of --count)")->type_name("N");
  add_stream_options(app, fizz_stream);
  app.get_option("--to")->excludes(app.get_option("--count"));

  CLI::App* yes_cmd = app.add_subcommand("yes", "Repeat a line forever, byte for byte like GNU yes");
  std::vector<std::string> yes_words;
  stream_text yes_stream;
  add_stream_options(*yes_cmd, yes_stream);
  yes_cmd->add_option("STRING", yes_words, "Words of the line, joined by single spaces (default: y)");
  yes_cmd->footer("Example: fizzgen yes --bytes 1G | pv >/dev/null");

  CLI::App* check_cmd = app.add_subcommand(
      "check", "Verify a FizzBuzz stream on stdin, independently of the generator");
  fizzbuzz_text check_text;
  add_rule_options(*check_cmd, check_text);
  check_cmd->footer("Example: fizzgen --from 99 --count 1G | fizzgen check --from 99");

  std::string arch_name;
  bool list = false;
  app.add_option("--arch", arch_name, "Force the kernel's instruction set (default: the best the CPU has; "
                                      "also FIZZGEN_ARCH)")
      ->type_name("NAME");
  app.add_flag("--list-archs", list, "List the kernel instruction sets and which this CPU can run");

  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
    if (*yes_cmd || *check_cmd) {
      for (char const* name : {"--from", "--to", "--rule", "--count", "--bytes", "--threads", "--reuse", "--arch",
                               "--generate-only", "--pipe-only", "--stats", "--stats-json", "--pipe-size", "--no-pin"})
        if (app.get_option(name)->count() > 0)
          throw std::invalid_argument(std::string(name) + " belongs after the subcommand, not before it");
    }
    if (list) return list_archs();
    if (*yes_cmd) return run_yes(yes_words, yes_stream);
    if (*check_cmd) return run_check(check_text);
    return run_fizzbuzz(fizz, fizz_stream, arch_name);
  } catch (CLI::CallForHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForAllHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForVersion const& e) {
    return app.exit(e);
  } catch (CLI::ParseError const& e) {
    std::fprintf(stderr, "fizzgen: %s (see fizzgen --help)\n", e.what());
    return kUsageError;
  } catch (std::invalid_argument const& e) {
    std::fprintf(stderr, "fizzgen: %s\n", e.what());
    return kUsageError;
  } catch (std::exception const& e) {
    std::fprintf(stderr, "fizzgen: %s\n", e.what());
    return 1;
  }
}

}  // namespace fizzgen::cli
