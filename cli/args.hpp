#pragma once
// Parsing and validation of option values. Every function throws std::invalid_argument with a
// message that names the option and the offending text, ready to print as the one error line.

#include <cstdint>
#include <string>
#include <string_view>

namespace fizzgen::cli {

/// A positive whole number of any length ("000123" → "123"); option names it in the message.
std::string parse_positive(std::string_view option, std::string_view text);

/// A count in GNU head's syntax: digits, then optionally b (512), K M G T P E (powers of 1024,
/// also KiB...), KB MB GB TB PB EB (powers of 1000). Must fit in 64 bits.
std::uint64_t parse_size(std::string_view option, std::string_view text);

/// A thread count: 1..kMaxThreads.
inline constexpr unsigned kMaxThreads = 1024;
unsigned parse_threads(std::string_view text);

struct rule_text {
  std::uint64_t divisor = 0;
  std::string word;
};
/// "D:WORD": D a positive 64-bit number, WORD non-empty without a newline.
rule_text parse_rule(std::string_view text);

}  // namespace fizzgen::cli
