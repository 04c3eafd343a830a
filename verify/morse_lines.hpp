#pragma once
// check --morse: the FizzBuzz stream in Morse, as `fizzgen morse` writes it (docs/morse.md), read
// with a table of check's own. Each Morse line decodes to one text line, which the FizzBuzz
// checker then judges against the words as decoding gives them back (decoded_word).

#include <cstddef>
#include <string>
#include <string_view>

namespace fizzgen::check {

/// Decodes Morse lines to text, one line per line, appending to `text`. A line must be in the
/// form the encoder writes: groups separated by single spaces, none before the first or after the
/// last, each group a code of the table or `/` (a space). Whatever breaks that form (a group that is
/// no code, a space too many) decodes to '#', which no expected line holds, so the line fails.
void decode_morse_lines(std::string_view morse, std::string& text);

/// The Morse the encoder writes for a decoded line (upper case, only characters with a code):
/// each character's code, `/` for a space, single spaces between them.
std::string encode_morse_line(std::string_view decoded);

/// The most Morse bytes one text byte takes (`%`: "----- -..-. ----- ").
inline constexpr std::size_t kMorsePerChar = 18;

}  // namespace fizzgen::check
