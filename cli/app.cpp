#include "cli/app.hpp"

#include <sys/stat.h>
#include <unistd.h>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/args.hpp"
#include "cli/bench_cmd.hpp"
#include "cli/morse_cmd.hpp"
#include "cli/sink_cmd.hpp"
#include "cli/stream_cmd.hpp"
#include "cli/tune_cmd.hpp"
#include "cli/usage.hpp"
#include "engine/cpus.hpp"
#include "help_text.hpp"  // footer::*: docs/help/*.txt, embedded by cmake/help_text.cmake
#include "report/check_run.hpp"
#include "report/report.hpp"
#include "verify/command.hpp"

#ifndef FIZZGEN_VERSION
#define FIZZGEN_VERSION "unknown"
#endif

namespace fizzgen::cli {
namespace {

constexpr int kUsageError = 2;

/// What --version prints, as GNU tools word it.
constexpr char const* kVersionText = "fizzgen " FIZZGEN_VERSION
                                     "\nCopyright (c) the fizzgen authors."
                                     "\nLicense MIT: <https://opensource.org/licenses/MIT>."
                                     "\nThis is free software: you are free to change and redistribute it."
                                     "\nThere is NO WARRANTY, to the extent permitted by law.";

/// --version on app and on every subcommand under it (fizzgen yes --version, as GNU yes has).
void add_version_flags(CLI::App& app) {
  app.set_version_flag("--version", std::string(kVersionText), "Print the version and licence, then exit");
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) add_version_flags(*sub);
}

/// check's threads without -j: the CPUs this process may use, one fewer when FILE is a pipe or a
/// socket, whose writer most likely runs here too and needs a CPU of its own. (On 2 CPUs,
/// `fizzgen --bytes 8G | fizzgen check --bytes 8G` took 3.2 s on two checking threads, pinned
/// one a CPU beside the writer, and 2.3-2.4 s on one.)
unsigned check_threads_default(std::string const& file) {
  auto const cpus = static_cast<unsigned>(std::max<std::size_t>(1, allowed_cpus().size()));
  struct stat st {};
  int const looked = file == "-" ? ::fstat(STDIN_FILENO, &st) : ::stat(file.c_str(), &st);
  bool const piped = looked == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
  return piped && cpus > 1 ? cpus - 1 : cpus;
}

/// The tool, with exceptions from the set-up of the parser itself still possible.
int run_app(int argc, char** argv) {
  note_invocation(argc, argv);
  // EPIPE and EFBIG come back as errors the engine handles, instead of killing a worker mid-run.
  std::signal(SIGPIPE, SIG_IGN);
  std::signal(SIGXFSZ, SIG_IGN);

  CLI::App app{
      "fizzgen - FizzBuzz (and yes) into a pipe, as fast as the machine allows, never a wrong byte.\n"
      "With no subcommand it writes the FizzBuzz stream.",
      "fizzgen"};
  app.formatter(wrapping_formatter());  // before the subcommands, which copy it
  app.footer(with_sizes(footer::fizzgen));

  fizzbuzz_text fizz;
  stream_request fizz_stream;
  add_fizzbuzz_options(app, fizz, fizz_stream);

  CLI::App* yes_cmd = app.add_subcommand("yes", "Repeat a line forever, byte for byte like GNU yes");
  std::vector<std::string> yes_words;
  stream_request yes_stream;
  add_stream_options(*yes_cmd, yes_stream);
  yes_cmd->add_option("STRING", yes_words, "Words of the line, joined by single spaces (default: y)");
  std::string yes_line_length;
  yes_cmd
      ->add_option("--line-length", yes_line_length,
                   "Lines of L bytes, the newline included: the words repeated and cut to fit; random:A..B: "
                   "each line's length drawn from A to B with --seed (printed by --stats)")
      ->type_name("L")
      ->check(line_length_check());
  yes_cmd->footer(with_sizes(footer::fizzgen_yes));

  CLI::App* check_cmd =
      app.add_subcommand("check", "Verify a FizzBuzz stream (FILE or stdin), independently of the generator");
  check::command check_args;
  std::optional<unsigned> check_threads;
  std::string check_interval, check_report;
  add_rule_options(*check_cmd, check_args.from, check_args.rules);
  add_size_option(*check_cmd, "-n,--count", check_args.count,
                  "Exactly N lines must arrive (K, M, G...; 0: nothing may)");
  check_cmd
      ->add_option("--to", check_args.to, "The last line must be that of N, as --from reads it (instead of --count)")
      ->type_name("N")
      ->excludes("--count")
      ->check(positive_check());
  add_size_option(*check_cmd, "-c,--bytes", check_args.bytes,
                  "Exactly N bytes must arrive, the last line perhaps cut off");
  check_cmd
      ->add_option("-j,--threads", check_threads,
                   "Verify on N threads, at most the CPUs this process may use (default: those, one fewer "
                   "from a pipe or a socket, whose writer needs one)")
      ->type_name("N")
      ->check(threads_check());
  check_cmd->add_flag("--random", check_args.random,
                      "Verify a 'fizzgen random --seed S' stream instead (give the same --seed; --bytes as above)");
  add_size_option(*check_cmd, "--seed", check_args.seed,
                  "The seed of the stream (--random, --line-length random:A..B) and of --read-size random:A..B",
                  size_value(), "S");
  check_cmd->add_flag("--yes", check_args.yes, "Verify lines of yes instead: each one --line (default y)");
  check_cmd->add_option("--line", check_args.line, "The line of --yes, without its newline")->type_name("TEXT");
  check_cmd
      ->add_option("--line-length", check_args.line_length,
                   "With --yes: lines of L bytes as 'fizzgen yes --line-length L' writes them (random:A..B with "
                   "--seed S)")
      ->type_name("L")
      ->check(line_length_check());
  auto* decoded =
      check_cmd->add_flag("--decoded", check_args.decoded,
                          "The stream is 'fizzgen morse' decoded: the rules' words in upper case (FIZZ, BUZZ)");
  check_cmd
      ->add_flag("--morse", check_args.morse,
                 "The stream is 'fizzgen morse' itself: each line must be the Morse of its FizzBuzz line, as the "
                 "encoder writes it (--count, --to say what must arrive; --bytes does not apply)")
      ->excludes(decoded);
  check_cmd
      ->add_option("--read-size", check_args.read_size,
                   "Read the input in read(2) calls of these sizes: N, a list A,B,C (repeated) or random:A..B "
                   "(drawn with --seed S), as a consumer under test might")
      ->type_name("SIZES")
      ->check(write_sizes_check("--read-size"));
  check_cmd
      ->add_option("--interval", check_interval,
                   "Every T (1s, 500ms), one JSON line on stderr (or --report FILE): bytes received over the "
                   "interval, their rate and the totals; a summary line with the verdict at the end")
      ->type_name("T")
      ->check(duration_check());
  check_cmd->add_option("--report", check_report, "Where --interval's lines go, instead of stderr")->type_name("FILE");
  check_cmd->add_option("FILE", check_args.file, "Input file; '-' or nothing: standard input");
  check_cmd->footer(footer::fizzgen_check);

  CLI::App* random_cmd =
      app.add_subcommand("random", "A seeded binary payload, every byte value: for consumers that must pass any byte");
  stream_request random_stream;
  add_stream_options(*random_cmd, random_stream);
  random_cmd->footer(with_sizes(footer::fizzgen_random));

  morse_command morse;
  add_morse_command(app, morse);

  sink_command sink;
  add_sink_command(app, sink);
  bench_command bench;
  add_bench_command(app, bench);
  tune_command tune;
  add_tune_command(app, tune);

  std::string arch_name;
  bool list = false;
  add_arch_option(app, arch_name,
                  "Force the kernel's instruction set (default: the best the CPU has; also FIZZGEN_ARCH)");
  app.add_flag("--list-archs", list, "List the kernel instruction sets and which this CPU can run");

  add_version_flags(app);

  app.require_subcommand(0, 1);
  try {
    app.parse(argc, argv);
    // The stream's own options belong to it: before a subcommand they would be silently ignored.
    if (!app.get_subcommands().empty())
      if (std::string const name = given_option(app); !name.empty())
        throw std::invalid_argument(name + " belongs after the subcommand, not before it");
    if (list) return list_archs();
    if (*morse.app) return run_morse(morse);
    if (*sink.app) return run_sink(sink.run);
    if (*bench.app) return run_bench(bench);
    if (*tune.app) return run_tune(tune);
    if (*yes_cmd) return run_yes(yes_words, yes_line_length, yes_stream);
    if (*random_cmd) return run_random(random_stream);
    if (*check_cmd)  // how its input is reported while it arrives is report/'s; the check is verify/'s
      return run_check(check_interval, check_report, [&](std::atomic<std::uint64_t>* received) {
        check_args.threads = check_threads ? threads_for_cpus(*check_threads) : check_threads_default(check_args.file);
        check_args.received = received;
        return check::run(check_args, stdout, stderr);
      });
    return run_fizzbuzz(fizz, fizz_stream, arch_name);
  } catch (CLI::CallForHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForAllHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForVersion const& e) {
    return app.exit(e);
  } catch (CLI::ParseError const& e) {
    std::fprintf(stderr, "%s\n", usage_line(plain_message(e), command_path(app)).c_str());
    return kUsageError;
  } catch (std::invalid_argument const& e) {
    std::fprintf(stderr, "%s\n", usage_line(e.what(), command_path(app)).c_str());
    return kUsageError;
  } catch (unwritable_report const& e) {  // found before the run: nothing ran, nothing on stdout
    std::fprintf(stderr, "fizzgen: %s\n", e.what());
    return kUsageError;
  } catch (std::exception const& e) {
    std::fprintf(stderr, "fizzgen: %s\n", e.what());
    return 1;
  }
}

}  // namespace

/// As gnulib's close_stdout: text that stdio (help, reports, JSON) could not write fails the run.
int close_stdout(int status) {
  std::cout.flush();
  if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return status;
  int const err = errno;
  if (err == EPIPE) {  // the reader went away (fizzgen --help | head -1): end as GNU tools do
    std::signal(SIGPIPE, SIG_DFL);
    std::raise(SIGPIPE);
  }
  std::fprintf(stderr, "fizzgen: standard output: %s\n", std::strerror(err));
  return status == 0 ? 1 : status;
}

int main(int argc, char** argv) {
  try {
    return close_stdout(run_app(argc, argv));
  } catch (std::exception const& e) {  // run_app handles its own; this is for the unexpected
    std::fprintf(stderr, "fizzgen: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "fizzgen: unexpected error\n");
  }
  return 1;
}

}  // namespace fizzgen::cli
