#include "cli/args.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

namespace fizzgen::cli {
namespace {

std::string quoted(std::string_view text) {
  std::string out = "'";
  for (char c : text) out += c == '\n' ? std::string("\\n") : std::string(1, c);
  return out + "'";
}

[[noreturn]] void bad(std::string_view option, std::string_view text, std::string_view what) {
  throw std::invalid_argument(std::string(option) + ": " + quoted(text) + " " + std::string(what));
}

bool all_digits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// digits → value, nullopt-like false on overflow.
bool to_u64(std::string_view digits, std::uint64_t& value) {
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  return ec == std::errc{} && end == digits.data() + digits.size();
}

}  // namespace

std::string parse_positive(std::string_view option, std::string_view text) {
  if (!all_digits(text)) bad(option, text, "is not a positive whole number");
  auto const first = text.find_first_not_of('0');
  if (first == std::string_view::npos) bad(option, text, "must be at least 1");
  return std::string(text.substr(first));
}

std::uint64_t parse_size(std::string_view option, std::string_view text) {
  auto const too_large = [&] { bad(option, text, "is too large (the most is 2^64-1)"); };
  std::size_t const digits = std::min(text.find_first_not_of("0123456789"), text.size());
  std::uint64_t value = 0;
  if (digits == 0) bad(option, text, "is not a size (digits, then optionally " + std::string(kSizeSuffixes) + ")");
  if (!to_u64(text.substr(0, digits), value)) too_large();
  std::string_view const suffix = text.substr(digits);
  if (suffix.empty()) return value;
  if (suffix == "b") {
    if (value > UINT64_MAX / 512) too_large();
    return value * 512;
  }
  // As GNU head (gnulib xstrtoumax): one of kKmMGTPEZY, alone or with iB for powers of 1024, with
  // B (or the obsolescent D) for powers of 1000. Z and Y pass 2^64 unless the number is 0.
  static constexpr std::string_view kPrefixes = "KMGTPEZY";
  char const first = suffix.front() == 'k' ? 'K' : suffix.front() == 'm' ? 'M' : suffix.front();
  auto const power = kPrefixes.find(first);
  std::string_view const rest = suffix.substr(1);
  std::uint64_t const base = rest.empty() || rest == "iB" ? 1024 : rest == "B" || rest == "D" ? 1000 : 0;
  if (power == std::string_view::npos || base == 0)
    bad(option, text, "has an unknown suffix (use " + std::string(kSizeSuffixes) + ")");
  for (std::size_t i = 0; i <= power; ++i) {
    if (value > UINT64_MAX / base) too_large();
    value *= base;
  }
  return value;
}

unsigned parse_threads(std::string_view text) {
  std::uint64_t value = 0;
  if (!all_digits(text) || !to_u64(text, value) || value == 0 || value > kMaxThreads)
    bad("--threads", text, "must be a whole number from 1 to " + std::to_string(kMaxThreads));
  return static_cast<unsigned>(value);
}

rule_text parse_rule(std::string_view text) {
  auto const colon = text.find(':');
  if (colon == std::string_view::npos) bad("--rule", text, "must look like DIVISOR:WORD, e.g. 3:Fizz");
  std::string_view const divisor = text.substr(0, colon);
  rule_text rule;
  rule.word = std::string(text.substr(colon + 1));
  if (!all_digits(divisor)) bad("--rule", text, "needs a whole-number divisor before ':'");
  if (!to_u64(divisor, rule.divisor)) bad("--rule", text, "has a divisor larger than 2^64-1");
  if (rule.divisor == 0) bad("--rule", text, "has divisor 0 (it must be at least 1)");
  if (rule.word.empty()) bad("--rule", text, "has an empty word after ':'");
  if (rule.word.find('\n') != std::string::npos) bad("--rule", text, "has a word containing a newline");
  return rule;
}

}  // namespace fizzgen::cli
