#pragma once
// The values options take, read from text: sizes as GNU head reads them, durations, write-size
// patterns, line lengths, thread counts, D:WORD rules, positive numbers of any length. Every
// function throws std::invalid_argument with a message that names the option and the offending
// text, ready to print as the one error line. No command-line parser here: cli/args.hpp runs
// these inside CLI11 validators, so a bad value is refused while parsing, with the same words.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fizzgen::parse {

/// A positive whole number of any length ("000123" → "123"), or one written as a power with an
/// optional offset: B^E, B^E+N or B^E-N, each part digits ("10^20", "2^64-1", "10^30+7"), where
/// B^E has at most kMaxPowerDigits digits. Returned as digits without leading zeros; option names
/// it in the message.
std::string parse_positive(std::string_view option, std::string_view text);
inline constexpr std::size_t kMaxPowerDigits = 20000;

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

/// A duration: a decimal number (a fraction allowed: "0.5", ".25") and a unit, ms, s, m or h, or no
/// unit for seconds: "500ms", "3s", "2m", "1h", "0.5". Exact to the nanosecond (finer digits are
/// dropped); 0 is a duration. Signs, spaces, other units and more than 2^63-1 ns are refused.
std::chrono::nanoseconds parse_duration(std::string_view option, std::string_view text);

/// A duration above 0: `text`, a part of the option's value `whole` as given; at 0 the message
/// names the whole value ("--stall: '1M:0s' needs a time above 0").
std::chrono::nanoseconds parse_positive_duration(std::string_view option, std::string_view whole,
                                                 std::string_view text);

/// --stall: "N:T" (a pause of T after every N bytes) or "random:N:T" (at points drawn with the
/// seed, N bytes apart on average); N a size above 0, T a duration above 0.
struct stall_text {
  std::uint64_t every = 0;
  std::chrono::nanoseconds pause{};
  bool random = false;
};
stall_text parse_stall(std::string_view text);

/// --burst: "ON/OFF", full speed for ON, then nothing for OFF; both durations above 0.
struct burst_text {
  std::chrono::nanoseconds on{}, off{};
};
burst_text parse_burst(std::string_view text);

/// --write-size: "N" (a fixed size), "A,B,C..." (a repeating list) or "random:A..B" (sizes from
/// A to B inclusive), every size in parse_size's syntax, from 1 to kMaxWriteSize.
inline constexpr std::uint64_t kMaxWriteSize = std::uint64_t{1} << 28;
struct write_sizes_text {
  std::vector<std::uint64_t> list;  ///< empty for a range
  std::uint64_t lo = 0, hi = 0;     ///< the range, when list is empty
};
/// `option` names the option in messages (check --read-size takes the same SIZES).
write_sizes_text parse_write_sizes(std::string_view text, std::string_view option = "--write-size");

/// --line-length: "L" (every line L bytes, its newline included) or "random:A..B" (lengths from A
/// to B inclusive, drawn with the seed), each in parse_size's syntax, from 1 to kMaxLineLength.
inline constexpr std::uint64_t kMaxLineLength = std::uint64_t{1} << 20;
struct line_lengths {
  std::uint64_t shortest = 0, longest = 0;  ///< equal for a fixed length
  bool random = false;                      ///< given as random:A..B (drawn even when A == B)
};
line_lengths parse_line_length(std::string_view text);

/// A thread count: 1..kMaxThreads.
inline constexpr unsigned kMaxThreads = 1024;
unsigned parse_threads(std::string_view text);

struct rule_text {
  std::uint64_t divisor = 0;
  std::string word;
};
/// "D:WORD": D a positive 64-bit number, WORD non-empty without a newline.
rule_text parse_rule(std::string_view text);

}  // namespace fizzgen::parse
