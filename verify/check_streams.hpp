#pragma once
// check's streams besides FizzBuzz, each verified with a generator of its own (the checker shares
// no code with generators/): --random, a `fizzgen random --seed S` stream (word j, bytes 8j to
// 8j+7 little-endian, is the j-th output of splitmix64 seeded with S), and --yes, the lines of
// `fizzgen yes` (or GNU yes). And --decoded: the rules a decoded Morse FizzBuzz stream has.

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace fizzgen::check {

/// Reads fd to its end and compares every byte, in blocks on `threads` threads; `bytes`: exactly
/// that many must arrive (else any length but none). Prints OK or the first difference (its byte
/// offset, both values) to out, problems to err; returns the exit status (0, or 1 for a
/// difference, a wrong length or a read error).
int check_random_main(std::uint64_t seed, std::optional<std::uint64_t> bytes, int fd, std::FILE* out, std::FILE* err,
                      unsigned threads = 1);

/// The lines --yes expects: `text` and '\n' each; with a length, `text` repeated and cut to
/// length - 1 bytes, then '\n', the length fixed (shortest == longest, not random) or, for line k
/// (from 0), shortest + (splitmix64's k-th number for `seed`) mod (longest - shortest + 1).
struct yes_lines {
  std::string text = "y";
  std::uint64_t shortest = 0, longest = 0;  ///< 0: no length, each line is text and '\n'
  bool random = false;
  std::uint64_t seed = 0;
};

/// Reads fd to its end on `threads` threads: every line must be the one `y` says (the last one
/// perhaps cut short, when `bytes` says so); `lines` / `bytes`: exactly that many must arrive
/// (else any number but none). Prints OK or the first bad line (number, byte offset, expected
/// and actual text) to out; the status. Throws std::invalid_argument when a length is below 1 or
/// the text is empty while a line is longer than its newline.
int check_yes_main(yes_lines const& y, std::optional<std::uint64_t> lines, std::optional<std::uint64_t> bytes, int fd,
                   std::FILE* out, std::FILE* err, unsigned threads = 1);

/// The word of a rule as `morse decode` gives it back from the FizzBuzz stream in Morse: upper
/// case, without the characters that have no Morse code.
std::string decoded_word(std::string_view word);

}  // namespace fizzgen::check
