#pragma once
// `fizzgen check` from its option values to its exit status: which stream is judged (FizzBuzz
// with --from, --to and --rule, its Morse (--morse) or decoded Morse (--decoded), --random,
// --yes), what must arrive, how the input is read (--read-size) and on how many threads. The
// front end parses the command line, report/check_run.hpp shows --interval's lines around the
// run; the rest of a check is here.

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace fizzgen::check {

/// check's options, as given ("" or nullopt: not given).
struct command {
  std::string from = "1", to;                 ///< --from, --to: decimal, any length
  std::vector<std::string> rules;             ///< --rule D:WORD, in order; none: 3:Fizz 5:Buzz
  std::optional<std::uint64_t> count, bytes;  ///< what must arrive
  unsigned threads = 1;                       ///< verify on this many threads
  std::string file = "-";                     ///< FILE; "-" standard input
  bool random = false;                        ///< --random: a `fizzgen random` stream, drawn with --seed
  std::optional<std::uint64_t> seed;          ///< the stream's seed (--random, --line-length random:...)
  bool yes = false;                           ///< --yes: lines of yes, each --line (default y)
  std::string line;                           ///< --line TEXT (with --yes)
  std::string line_length;                    ///< --line-length L | random:A..B (with --yes)
  bool decoded = false;                       ///< --decoded: the rules' words as Morse decoding gives them back
  bool morse = false;     ///< --morse: the Morse FizzBuzz stream itself, as `fizzgen morse` writes it
  std::string read_size;  ///< --read-size SIZES
  std::atomic<std::uint64_t>* received = nullptr;  ///< when set, bytes that arrived are added to it
};

/// Runs the check `c` describes on FILE or standard input: prints OK or the first problem (to
/// out and err, as check_main) and returns the exit status, 0 or 1 (also for a FILE that cannot be
/// opened). Throws std::invalid_argument naming the option for a combination that makes no sense.
int run(command const& c, std::FILE* out, std::FILE* err);

}  // namespace fizzgen::check
