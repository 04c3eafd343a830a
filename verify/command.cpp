#include "verify/command.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include "parse/values.hpp"
#include "verify/check.hpp"
#include "verify/check_streams.hpp"
#include "verify/input.hpp"

namespace fizzgen::check {
namespace {

/// --read-size random:A..B: the read sizes are drawn with --seed.
bool draws_read_sizes(command const& c) { return c.read_size.rfind("random:", 0) == 0; }

/// FILE opened for reading (standard input for "-"), closed at the end of the check.
class input_file {
 public:
  explicit input_file(std::string const& name)
      : fd_(name == "-" ? STDIN_FILENO : ::open(name.c_str(), O_RDONLY | O_CLOEXEC)) {}
  ~input_file() {
    if (fd_ > STDIN_FILENO) ::close(fd_);
  }
  input_file(input_file const&) = delete;
  input_file& operator=(input_file const&) = delete;
  int fd() const noexcept { return fd_; }

 private:
  int fd_;
};

/// The check on the opened input: 1 after a message when FILE could not be opened.
template <class Check>
int on_input(command const& c, std::FILE* err, Check check) {
  input_file const in(c.file);
  if (in.fd() < 0) {
    std::fprintf(err, "fizzgen check: %s: %s\n", c.file.c_str(), std::strerror(errno));
    return 1;
  }
  return check(in.fd());
}

/// check --random --seed S: nothing of FizzBuzz applies.
int run_random(command const& c, std::FILE* out, std::FILE* err) {
  if (!c.seed) throw std::invalid_argument("--random: needs --seed S, the seed of the stream");
  if (c.count || !c.to.empty() || !c.rules.empty() || c.from != "1")
    throw std::invalid_argument("--random: the stream has no lines; only --bytes says what must arrive");
  return on_input(c, err, [&](int fd) { return check_random_main(*c.seed, c.bytes, fd, out, err, c.threads); });
}

/// check --yes [--line TEXT] [--line-length L|random:A..B --seed S]: nothing of FizzBuzz applies.
int run_yes(command const& c, std::FILE* out, std::FILE* err) {
  if (!c.to.empty() || !c.rules.empty() || c.from != "1" || c.decoded || c.morse)
    throw std::invalid_argument(
        "--yes: the lines are yes lines; only --line, --line-length, --seed, --count and --bytes "
        "apply");
  yes_lines y;
  y.text = c.line.empty() ? "y" : c.line;
  if (!c.line_length.empty()) {
    parse::line_lengths const l = parse::parse_line_length(c.line_length);
    y.shortest = l.shortest;
    y.longest = l.longest;
    y.random = l.random;
    if (l.random && !c.seed)
      throw std::invalid_argument("--line-length: random lengths need --seed S, the seed of the stream");
    y.seed = c.seed.value_or(0);
  }
  if (c.seed && !y.random && !draws_read_sizes(c))
    throw std::invalid_argument(
        "--seed: only --random, --line-length random:... and --read-size random:... use a seed");
  return on_input(c, err, [&](int fd) { return check_yes_main(y, c.count, c.bytes, fd, out, err, c.threads); });
}

/// The FizzBuzz stream, plain, in Morse or decoded from Morse.
int run_fizzbuzz(command const& c, std::FILE* out, std::FILE* err) {
  if (c.seed && !draws_read_sizes(c))
    throw std::invalid_argument("--seed: only check --random and --read-size random:... use a seed");
  if (!c.line.empty()) throw std::invalid_argument("--line: only check --yes has lines of text");
  if (!c.line_length.empty()) throw std::invalid_argument("--line-length: only check --yes has lines of a length");
  options o;
  o.from = parse::parse_positive("--from", c.from);
  for (auto const& text : c.rules) {
    parse::rule_text r = parse::parse_rule(text);
    o.rules.push_back({r.divisor, std::move(r.word)});
  }
  // A decoded Morse stream: the words upper-cased, less what has no code (the classic rules too);
  // the Morse stream itself decodes to the same.
  if (c.decoded || c.morse) {
    if (o.rules.empty()) o.rules = {{3, "Fizz"}, {5, "Buzz"}};
    for (auto& r : o.rules) r.word = decoded_word(r.word);
  }
  o.lines = c.count;
  o.bytes = c.bytes;
  o.morse = c.morse;
  if (c.morse && o.bytes) throw std::invalid_argument("--bytes: a Morse stream is checked by lines (--count, --to)");
  if (!c.to.empty()) {
    o.lines = lines_between(o.from, parse::parse_positive("--to", c.to));
    // 2^64 lines or more: no stream gets there, and a check without a count would pass any length.
    if (!o.lines)
      throw std::invalid_argument("--to: '" + c.to + "' is 2^64 lines or more from --from " + o.from +
                                  ": no stream ends there (without --to any length passes)");
  }
  return on_input(c, err, [&](int fd) { return check_main(o, fd, out, err, c.threads); });
}

}  // namespace

int run(command const& c, std::FILE* out, std::FILE* err) {
  if (draws_read_sizes(c) && !c.seed)
    throw std::invalid_argument("--read-size: random sizes need --seed S, to draw the same sizes again");
  input_plan plan;
  if (!c.read_size.empty()) {
    parse::write_sizes_text const w = parse::parse_write_sizes(c.read_size, "--read-size");
    plan.sizes = size_pattern(w.list, w.lo, w.hi, c.seed.value_or(0));
  }
  plan.received = c.received;
  plan_input(std::move(plan));
  if (c.random && c.yes) throw std::invalid_argument("--random, --yes: one stream at a time");
  if (c.random && (c.morse || c.decoded)) throw std::invalid_argument("--random: the stream has no Morse");
  if (c.random) return run_random(c, out, err);
  if (c.yes) return run_yes(c, out, err);
  return run_fizzbuzz(c, out, err);
}

}  // namespace fizzgen::check
