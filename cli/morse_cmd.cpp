#include "cli/morse_cmd.hpp"

#include <stdexcept>

#include "cli/args.hpp"
#include "help_text.hpp"  // footer::*: docs/help/*.txt, embedded by cmake/help_text.cmake

namespace fizzgen::cli {
namespace {

constexpr char const* kArchHelp = "Force the kernel's instruction set (see fizzgen --list-archs)";

void add_codec_options(CLI::App& cmd, morse_codec_text& t) {
  cmd.add_option("FILE", t.file, "Input file; '-' or nothing: standard input");
  cmd.add_option("-j,--threads", t.threads,
                 "Cores transforming chunks at once (default, and the most that run: the CPUs this process "
                 "may use)")
      ->type_name("N")
      ->check(threads_check());
  add_size_option(cmd, "--chunk-size", t.chunk_size,
                  "Input bytes per chunk (default 128K; 512K to decode a file; the output never depends on it)",
                  size_value(1, std::uint64_t{1} << 30, "must be from 1 to 1G"));
  add_arch_option(cmd, t.arch, kArchHelp);
}

}  // namespace

void add_morse_command(CLI::App& app, morse_command& m) {
  m.app =
      app.add_subcommand("morse", "The FizzBuzz stream in Morse code; or any text to Morse and back (encode, decode)");
  add_fizzbuzz_options(*m.app, m.fizz, m.stream);
  add_arch_option(*m.app, m.arch, kArchHelp);
  m.app->footer(with_sizes(footer::fizzgen_morse));
  m.app->require_subcommand(0, 1);

  m.encode = m.app->add_subcommand("encode", "Any input to Morse code, on every core");
  add_codec_options(*m.encode, m.encode_text);
  m.encode->footer(with_sizes(footer::fizzgen_morse_encode));

  m.decode = m.app->add_subcommand(
      "decode", std::string("Morse code back to text, upper case; unknown code groups print ") + kMorseUnknownMarker);
  add_codec_options(*m.decode, m.decode_text);
  m.decode->footer(with_sizes(footer::fizzgen_morse_decode));
}

std::string given_option(CLI::App const& parent) {
  for (CLI::Option const* o : parent.get_options()) {
    // CLI11 gives hidden options (--chunk-bytes, --buffers) no name: their long name, then.
    std::string name = o->get_lnames().empty() ? o->get_name() : "--" + o->get_lnames().front();
    if (o->count() > 0 && name != "--help" && name != "--version" && name != "--list-archs") return name;
  }
  return "";
}

int run_morse(morse_command const& m) {
  if (*m.encode || *m.decode) {
    if (std::string const name = given_option(*m.app); !name.empty())
      throw std::invalid_argument(name + " does not apply to morse " + (*m.encode ? "encode" : "decode"));
    return *m.encode ? run_morse_codec(m.encode_text, morse_direction::encode)
                     : run_morse_codec(m.decode_text, morse_direction::decode);
  }
  return run_morse_fizzbuzz(m.fizz, m.stream, m.arch);
}

}  // namespace fizzgen::cli
