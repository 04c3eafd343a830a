#include "cli/morse_cmd.hpp"

#include <stdexcept>
#include <string_view>

#include "cli/args.hpp"
#include "engine/cpus.hpp"
#include "engine/morse_stream.hpp"
#include "generators/morse_fizzbuzz.hpp"
#include "generators/morse_table.hpp"

namespace fizzgen::cli {
namespace {

constexpr char const* kMorseFooter =
    R"(Each line of the FizzBuzz stream in Morse (README, section Morse): 1 is .----, Fizz is
..-. .. --.. --..; letters are case-insensitive, a space is "/", characters without a code are
dropped, so a rule word with no encodable character gives an empty line.

Examples:
  fizzgen morse --count 3                     prints .----, ..--- and ..-. .. --.. --.. on 3 lines
  fizzgen morse | pv >/dev/null               throughput run
  fizzgen morse --count 100 | fizzgen morse decode   back to 1, 2, FIZZ ...)";

constexpr char const* kEncodeFooter =
    R"(Reads FILE (or standard input: '-' or nothing) in order, encodes chunks on every core and
writes them in order: the output never depends on --threads. Letters are case-insensitive, a
space becomes "/", '\n' '\t' '\r' pass through, characters without a code are dropped.

Example:
  echo 'SOS Titanic' | fizzgen morse encode   prints ... --- ... / - .. - .- -. .. -.-.)";

constexpr char const* kDecodeFooter =
    R"(Code groups are separated by spaces; "/" is a word gap (a space); '\n' '\t' '\r' pass
through; the output is upper case. A group that is no code prints '#' (no character has a
code that reads back as '#'), and decoding goes on. Any input is safe to decode.

Example:
  echo '... --- ... / .-.-.' | fizzgen morse decode   prints SOS +)";

void add_codec_options(CLI::App& cmd, morse_codec_text& t) {
  cmd.add_option("FILE", t.file, "Input file; '-' or nothing: standard input");
  cmd.add_option("-j,--threads", t.threads,
                 "Cores transforming chunks at once (default: the CPUs this process may use)")
      ->type_name("N")
      ->check(threads_check());
  cmd.add_option("--chunk-size", t.chunk_size, "Input bytes per chunk (default 64K; the output never depends on it)")
      ->type_name("N")
      ->transform(size_value(1, std::uint64_t{1} << 30, "must be from 1 to 1G"));
  cmd.add_option("--arch", t.arch, "Force the kernel's instruction set (see fizzgen --list-archs)")->type_name("NAME");
}

int run_codec(morse_codec_text const& t, morse_direction direction) {
  morse_stream_options o;
  o.direction = direction;
  o.arch = &choose_arch(t.arch);
  if (t.threads) {
    o.threads = *t.threads;
  } else {  // only then: hwloc reads much of /sys, a few ms of a short run
    auto const cpus = static_cast<unsigned>(allowed_cpus().size());
    o.threads = cpus == 0 ? 1 : cpus;
  }
  if (t.chunk_size) o.chunk_bytes = static_cast<std::size_t>(*t.chunk_size);
  morse_stream_report const r = run_morse_file(t.file, o);
  return exit_status(r.status, r.error);
}

int run_stream(morse_command const& m) {
  window const w = parse_window(m.fizz, m.stream);
  kernel_arch const& arch = choose_arch(m.arch);
  stream_sizes const sizes =
      sizes_for(m.stream, m.stream.reuse == "never" ? stream_kind::fresh_pages : stream_kind::rewritten);
  morse_fizzbuzz const gen(w.from, to_rules(m.fizz.rules), w.lines, sizes.chunk_bytes, arch);
  return stream(gen, gen.uses_kernel() ? arch.name : "scalar", m.stream, sizes);
}

}  // namespace

void add_morse_command(CLI::App& app, morse_command& m) {
  m.app =
      app.add_subcommand("morse", "The FizzBuzz stream in Morse code; or any text to Morse and back (encode, decode)");
  add_rule_options(*m.app, m.fizz.from, m.fizz.rules);
  m.app->add_option("--to", m.fizz.to, "Last number, inclusive (instead of --count)")
      ->type_name("N")
      ->check(positive_check());
  add_stream_options(*m.app, m.stream);
  m.app->get_option("--to")->excludes(m.app->get_option("--count"));
  m.app->add_option("--arch", m.arch, "Force the kernel's instruction set (see fizzgen --list-archs)")
      ->type_name("NAME");
  m.app->footer(std::string(kMorseFooter) + "\n\n" + kSizeHelp);
  m.app->require_subcommand(0, 1);

  m.encode = m.app->add_subcommand("encode", "Any input to Morse code, on every core");
  add_codec_options(*m.encode, m.encode_text);
  m.encode->footer(std::string(kEncodeFooter) + "\n\n" + kSizeHelp);

  m.decode = m.app->add_subcommand(
      "decode", std::string("Morse code back to text, upper case; unknown code groups print ") + morse::kUnknownMarker);
  add_codec_options(*m.decode, m.decode_text);
  m.decode->footer(std::string(kDecodeFooter) + "\n\n" + kSizeHelp);
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
    return *m.encode ? run_codec(m.encode_text, morse_direction::encode)
                     : run_codec(m.decode_text, morse_direction::decode);
  }
  return run_stream(m);
}

}  // namespace fizzgen::cli
