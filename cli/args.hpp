#pragma once
// Parsing and validation of option values. Every function throws std::invalid_argument with a
// message that names the option and the offending text, ready to print as the one error line.

#include <cstdint>
#include <string>
#include <string_view>

namespace fizzgen::cli {

/// A positive whole number of any length ("000123" → "123"); option names it in the message.
std::string parse_positive(std::string_view option, std::string_view text);

/// The paragraph of every --help page whose options take a size.
inline constexpr char const* kSizeHelp =
    "Sizes (N) as GNU head reads them: digits, then optionally b (512), K or KiB (1024), KB (1000), "
    "M or MiB (1024^2), MB (1000^2), and so on with G, T, P, E; k and m are K and M.";

/// The size suffixes parse_size() takes, as its messages list them.
inline constexpr std::string_view kSizeSuffixes = "b, K, KB, KiB, M, MB, MiB... up to E, EB, EiB";

/// A size or count as GNU head reads one: digits, then optionally b (512), K (k) M (m) G T P E Z Y
/// alone or with iB (powers of 1024), or with B (powers of 1000). Must fit in 64 bits; no sign,
/// no blanks (head's strtoumax would skip those).
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
