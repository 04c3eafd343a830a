#pragma once
// `fizzgen check`: the independent judge of a FizzBuzz stream. It shares no code with generators/:
// it keeps the current number as an ASCII digit string incremented in place, knows which words are
// due from a table indexed by N mod lcm(divisors) (or a residue per rule when that lcm is large),
// and compares the input with the expected bytes, '\n' included, so it never searches for newlines:
// ten lines at a time against a template where it can, one line at a time where it cannot.
// No big-number division per line, no allocation per line.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fizzgen::check {

/// Bytes of a bad line kept in result::actual.
inline constexpr std::size_t kShowMax = 200;

struct rule {
  std::uint64_t divisor;  ///< > 0
  std::string word;       ///< non-empty, no '\n'
};

struct options {
  std::string from = "1";   ///< decimal digits, no leading zeros, > 0; any length
  std::vector<rule> rules;  ///< in output order; empty means the classic 3:Fizz 5:Buzz
  // What must arrive (check_main): the stream ends at the first of these limits reached, as the
  // generator's --count and --bytes end it. With neither, any length but 0 passes.
  std::optional<std::uint64_t> lines = std::nullopt;  ///< --count, --to: whole lines
  std::optional<std::uint64_t> bytes = std::nullopt;  ///< --bytes: bytes, the last line perhaps cut off
  /// The stream is the Morse encoding of those lines, as `fizzgen morse` writes it: each line is
  /// decoded (verify/morse_lines.hpp) and judged against the rules' words as decoding gives them
  /// back; offsets, byte counts and the lines shown are the Morse ones. check_main only; not
  /// with `bytes`.
  bool morse = false;
};

struct result {
  bool ok = true;
  std::uint64_t lines = 0;       ///< '\n'-terminated lines verified (a cut-off final line is not one)
  std::uint64_t bytes = 0;       ///< bytes verified, including a valid cut-off final line
  std::uint64_t tail_bytes = 0;  ///< on success: length of a valid cut-off final line (0 if none)
  // On failure (lines and bytes then count what came before the bad line):
  std::uint64_t bad_line = 0;     ///< 1-based line number within the stream
  std::uint64_t bad_offset = 0;   ///< byte offset of the start of the bad line
  std::string expected;           ///< expected line text, without '\n'
  std::string actual;             ///< actual line text without '\n', at most 200 bytes
  bool actual_truncated = false;  ///< the actual line went on past those 200 bytes
  std::string reason;             ///< "wrong line", "empty line" or "wrong cut-off final line"

  friend bool operator==(result const&, result const&) = default;
};

/// Verifies a stream fed in pieces; any split of the same stream gives the same result.
/// Line k (k = 0, 1, ...) must be the text for N = from + k followed by '\n'.
class checker {
 public:
  /// Throws std::invalid_argument when `o` breaks the contracts stated in `options` and `rule`.
  explicit checker(options const& o);

  /// Checks the next bytes of the stream. Returns true while it wants more: until a mismatch is
  /// found and the bad line's text (up to '\n' or 200 bytes) is collected; later feeds are ignored.
  bool feed(std::string_view data);
  /// Ends the stream. A final line without '\n' passes only if it is a prefix of the expected line.
  result finish();

 private:
  struct entry {
    std::uint32_t offset;  // into words_
    std::uint32_t size;    // with the '\n'; 0: the line is the number
  };
  struct decade {                 // the ten lines from an N that ends in 0
    std::uint32_t offset;         // into decade_text_, a whole number of chunks
    std::uint32_t size;           // bytes of the ten lines
    std::uint32_t numbers;        // how many of them are numbers
    std::uint16_t number_at[10];  // where each number line starts
  };

  void build_table(std::uint64_t period);
  std::string_view expected() const noexcept;
  void advance() noexcept;
  void build_line();
  void carry_digit() noexcept;
  void build_decades(std::size_t digits);
  char const* verify_decades(char const* p, char const* end);
  char const* verify_short_lines(char const* p, char const* end) noexcept;
  char const* verify_lines(char const* p, char const* end);
  void fail(char const* p, char const* end);
  void collect(char const* p, char const* end);

  // Every expected line is followed by readable padding so it can be compared 32 bytes at a time.
  std::string number_;           // digits of N, '\n', padding
  std::size_t number_size_ = 0;  // digits and '\n'
  // Small period (lcm of the divisors): table_[N mod period] names the words line.
  std::vector<entry> table_;
  std::string words_;
  std::size_t phase_ = 0;
  // Ten lines at a time: for each N mod period (a multiple of decade_step_), the ten lines as a
  // template whose number lines lack their high digits, which all equal those of N.
  bool decades_on_ = false;
  std::size_t decade_step_ = 1;    // gcd(period, 10)
  std::size_t decade_digits_ = 0;  // digit count of N the templates are built for
  std::vector<decade> decades_;
  std::string decade_text_;
  std::vector<std::uint32_t> decade_ignored_;  // per chunk: bytes the template leaves open
  // Otherwise: N mod divisor per rule, and the words line built in line_.
  std::vector<rule> rules_;
  std::vector<std::uint64_t> residues_;
  std::string line_;           // words of N, '\n', padding
  std::size_t line_size_ = 0;  // words and '\n'; 0 when N gets its digits

  std::uint64_t lines_ = 0;
  std::uint64_t bytes_ = 0;  // offset of the current line
  std::size_t partial_ = 0;  // bytes of the current line already matched (a cut across feeds)
  bool failed_ = false;
  bool collecting_ = false;  // still reading the bad line's text
  result failure_;
};

/// An upper bound on the length, '\n' included, of any line of a stream that passes with `o`.
/// A stream has fewer than 2^64 lines, so N = from + k has at most max(digits of from, 20) + 1
/// digits, and a words line is at most all the words together. So every run of this many bytes
/// from the start of a line holds a '\n', or the line is bad; no valid line is longer.
std::size_t longest_line(options const& o);

/// digits + n: `digits` decimal without leading zeros, any length.
std::string add_decimal(std::string digits, std::uint64_t n);
/// Lines from `from` to `to` inclusive (both decimal without leading zeros): to - from + 1;
/// nullopt when that is above 2^64-1. Throws std::invalid_argument when to < from.
std::optional<std::uint64_t> lines_between(std::string_view from, std::string_view to);

/// "" when the length of a correct stream `r` is what `o.lines` and `o.bytes` ask for (with
/// neither: anything but an empty stream); else the one-line reason, naming the expected and
/// received counts and where the stream ended early or went on too long.
std::string judge_length(result const& r, options const& o);

/// Reads fd to EOF (1 MiB read(2) calls, EINTR retried) through a checker, stopping at the first
/// bad line. Throws std::system_error("read") on a read error, std::invalid_argument on bad options.
result check_fd(int fd, options const& o);

/// Like check_fd with `threads` workers (TBB), and the only path for o.morse: blocks of whole lines verified in
/// parallel, results combined in order; identical result. Reads on past a bad line to the end of its block. Memory is
/// bounded: a line without '\n' longer than longest_line(o) + kShowMax ends the reading, as the line is bad and its
/// report needs no more.
result check_fd_parallel(int fd, options const& o, unsigned threads);

/// Runs the subcommand on fd. Success: prints "fizzgen check: OK: N lines, B bytes" to `out`,
/// returns 0. Bad line: prints "fizzgen check: line L (byte offset O): expected 'E', got 'A'" to
/// `err` (with a hint when A is the number of a later or an earlier line), returns 1. A correct
/// stream of the wrong length (judge_length): prints the reason to `err`, returns 1. Read error: prints it to `err`,
/// returns 1 (a runtime failure, as in app.hpp). Bad options throw std::invalid_argument (a usage error for the
/// caller). threads > 1 checks in parallel (check_fd_parallel).
int check_main(options const& o, int fd, std::FILE* out, std::FILE* err, unsigned threads = 1);

}  // namespace fizzgen::check
