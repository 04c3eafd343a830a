#include "streams/commands.hpp"

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include "engine/cpus.hpp"
#include "generators/decimal.hpp"
#include "generators/fizzbuzz.hpp"
#include "generators/morse_fizzbuzz.hpp"
#include "generators/random_bytes.hpp"
#include "generators/rules.hpp"
#include "generators/yes.hpp"
#include "parse/values.hpp"

namespace fizzgen::cli {
namespace {

using namespace parse;

/// The rules given, or the classic ones.
rule_set to_rules(std::vector<std::string> const& texts) {
  if (texts.empty()) return classic_rules();
  rule_set rules;
  for (auto const& t : texts) {
    rule_text r = parse_rule(t);
    rules.push_back({r.divisor, std::move(r.word)});
  }
  return rules;
}

/// The window of lines --from, --to and --count select.
struct window {
  decimal from;
  std::optional<std::uint64_t> lines;  ///< nullopt: unbounded
};

window parse_window(fizzbuzz_text const& f, stream_request const& t) {
  window w{*decimal::parse(parse_positive("--from", f.from)), t.count};
  if (!f.to.empty()) {
    decimal const to = *decimal::parse(parse_positive("--to", f.to));
    if (to < w.from) throw std::invalid_argument("--to: " + f.to + " is below --from " + f.from);
    // More than 2^64-1 lines can never be written, so such a window is as good as unbounded.
    if (auto const span = to.minus(w.from); span && *span != UINT64_MAX) w.lines = *span + 1;
  }
  return w;
}

/// A numbered-line stream (fizzbuzz, morse_fizzbuzz) of the window and rules f gives.
template <class Lines>
int run_numbered(fizzbuzz_text const& f, stream_request const& t, std::string const& arch_name, bool tunable) {
  window const w = parse_window(f, t);
  kernel_arch const& arch = choose_arch(arch_name);
  stream_kind const kind = t.reuse == "never" ? stream_kind::fresh_pages : stream_kind::rewritten;
  stream_sizes const sizes = sizes_for(t, kind, tunable);
  Lines const gen(w.from, to_rules(f.rules), w.lines, sizes.chunk_bytes, arch);
  return stream(gen, gen.uses_kernel() ? arch.name : "scalar", t, sizes);
}

/// A stream whose bytes are drawn with --seed: the seed in use is the one --stats prints and
/// `check ... --seed` needs.
void draw_payload_seed(stream_request& t) {
  t.seed = seed_option(t);
  t.payload_seed = true;
}

}  // namespace

kernel_arch const& choose_arch(std::string const& name) {
  // --arch first; else FIZZGEN_ARCH, refused the same way (a typo there must not pass unnoticed).
  std::string const env = [] {
    char const* v = std::getenv("FIZZGEN_ARCH");
    return std::string(v != nullptr ? v : "");
  }();
  std::string const source = name.empty() ? "FIZZGEN_ARCH" : "--arch";
  std::string const chosen = name.empty() ? env : name;
  if (chosen.empty()) return default_arch();
  kernel_arch const* a = find_arch(chosen);
  if (a == nullptr) throw std::invalid_argument(source + ": '" + chosen + "' is not an arch (see --list-archs)");
  if (!a->available) throw std::invalid_argument(source + ": this CPU cannot run " + chosen + " (see --list-archs)");
  return *a;
}

int list_archs() {
  kernel_arch const& best = default_arch();
  for (auto const& a : kernel_archs())
    std::printf("%-11s %s%s\n", std::string(a.name).c_str(), a.available ? "available" : "not available on this CPU",
                &a == &best ? " (default)" : "");
  return 0;
}

int run_fizzbuzz(fizzbuzz_text const& f, stream_request const& t, std::string const& arch) {
  return run_numbered<fizzbuzz>(f, t, arch, true);
}

int run_morse_fizzbuzz(fizzbuzz_text const& f, stream_request const& t, std::string const& arch) {
  return run_numbered<morse_fizzbuzz>(f, t, arch, false);
}

int run_random(stream_request t) {
  if (t.count) throw std::invalid_argument("--count: random has no lines; --bytes says how much");
  draw_payload_seed(t);
  stream_sizes const sizes = sizes_for(t, stream_kind::rewritten);
  random_bytes const gen(*t.seed, sizes.chunk_bytes);
  return stream(gen, "none", t, sizes);
}

int run_yes(std::vector<std::string> const& words, std::string const& line_length, stream_request t) {
  std::optional<std::uint64_t> const count = t.count;
  if (line_length.empty()) {
    stream_sizes const sizes = sizes_for(t, stream_kind::constant);
    yes const gen(words, count, sizes.chunk_bytes);
    return stream(gen, "none", t, sizes);
  }
  line_lengths const l = parse_line_length(line_length);
  std::string const text = yes_text(words);
  if (text.empty() && l.longest > 1)
    throw std::invalid_argument("--line-length: the line's text is empty: nothing to repeat up to the length");
  if (!l.random) {  // one line, repeated: the constant stream, as fast as plain yes
    stream_sizes const sizes = sizes_for(t, stream_kind::constant);
    yes const gen = yes::of_line(cycled_line(text, l.longest), count, sizes.chunk_bytes);
    return stream(gen, "none", t, sizes);
  }
  draw_payload_seed(t);
  stream_sizes const sizes = sizes_for(t, stream_kind::rewritten);
  yes_random_lengths const gen(text, l.shortest, l.longest, *t.seed, count, sizes.chunk_bytes);
  return stream(gen, "none", t, sizes);
}

int run_morse_codec(morse_codec_text const& t, morse_direction direction) {
  morse_stream_options o;
  o.direction = direction;
  o.arch = &choose_arch(t.arch);
  // The affinity mask's count at most: hwloc would read much of /sys, 2 ms of a short run.
  o.threads = t.threads ? threads_for_cpus(*t.threads) : allowed_cpu_count();
  if (t.chunk_size) o.chunk_bytes = static_cast<std::size_t>(*t.chunk_size);
  morse_stream_report const r = run_morse_file(t.file, o);
  return exit_status(r.status, r.error);
}

}  // namespace fizzgen::cli
