#pragma once
// The generating commands, from the option values the front end parsed to their exit status:
// which generator the values ask for, on which kernel arch, built with the sizes report/ plans and
// streamed by report/stream_run.hpp (FizzBuzz, yes, random, the Morse FizzBuzz stream), or the
// Morse codec run over a file (engine/morse_stream.hpp). Every function throws
// std::invalid_argument (one line, exit 2) for values that do not go together, before anything
// is written, and may end the process with SIGPIPE when the reader goes away, as GNU tools do.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/morse_stream.hpp"
#include "generators/arch.hpp"
#include "generators/morse_table.hpp"
#include "report/stream_run.hpp"

namespace fizzgen::cli {

/// --from, --to and --rule as given: text, so that errors name the exact input.
struct fizzbuzz_text {
  std::string from = "1", to;
  std::vector<std::string> rules;  ///< D:WORD each; none: the classic 3:Fizz 5:Buzz
};

/// Options of `morse encode` and `morse decode` (nullopt: not given).
struct morse_codec_text {
  std::string file = "-";  ///< "-" is standard input
  std::optional<unsigned> threads;
  std::optional<std::uint64_t> chunk_size;
  std::string arch;  ///< the kernel's instruction set; "": FIZZGEN_ARCH, else the best the CPU offers
};

/// What `morse decode` prints for a code group that is no code.
inline constexpr char kMorseUnknownMarker = morse::kUnknownMarker;

/// The arch by name, else by FIZZGEN_ARCH when set, else the best the CPU has; an unknown or
/// unavailable one is refused naming it and where it came from (--arch or FIZZGEN_ARCH).
kernel_arch const& choose_arch(std::string const& name);
/// `fizzgen --list-archs`: every arch, whether this CPU runs it, which is the default.
int list_archs();

/// `fizzgen`: the FizzBuzz stream of the window and rules f gives, on the kernel of `arch`.
int run_fizzbuzz(fizzbuzz_text const& f, stream_request const& t, std::string const& arch);
/// `fizzgen morse`: the same lines in Morse code.
int run_morse_fizzbuzz(fizzbuzz_text const& f, stream_request const& t, std::string const& arch);
/// `fizzgen yes [WORDS] [--line-length L|random:A..B]`.
int run_yes(std::vector<std::string> const& words, std::string const& line_length, stream_request t);
/// `fizzgen random`: splitmix64's bytes for --seed (a fresh seed when not given).
int run_random(stream_request t);
/// `fizzgen morse encode|decode [FILE]`: 0 done, 1 output failure or unreadable FILE.
int run_morse_codec(morse_codec_text const& t, morse_direction direction);

}  // namespace fizzgen::cli
