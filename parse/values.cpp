#include "parse/values.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace fizzgen::parse {
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

/// A natural number of any length in base-10^9 limbs, least significant first; no high zero limbs
/// (zero is no limbs). Just what B^E, B^E+N and B^E-N need.
using natural = std::vector<std::uint32_t>;
constexpr std::uint32_t kLimb = 1'000'000'000;

natural natural_of(std::string_view digits) {
  natural n;
  for (std::size_t end = digits.size(); end > 0; end -= std::min<std::size_t>(end, 9)) {
    std::size_t const from = end - std::min<std::size_t>(end, 9);
    std::uint32_t limb = 0;
    std::from_chars(digits.data() + from, digits.data() + end, limb);
    n.push_back(limb);
  }
  while (!n.empty() && n.back() == 0) n.pop_back();
  return n;
}

std::string digits_of(natural const& n) {
  if (n.empty()) return "0";
  std::string out = std::to_string(n.back());
  for (std::size_t i = n.size() - 1; i-- > 0;) {
    std::string const limb = std::to_string(n[i]);
    out += std::string(9 - limb.size(), '0') + limb;
  }
  return out;
}

natural times(natural const& a, natural const& b) {
  if (a.empty() || b.empty()) return {};
  std::vector<std::uint64_t> acc(a.size() + b.size() + 1, 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::uint64_t carry = 0;
    for (std::size_t j = 0; j < b.size(); ++j) {  // < 10^18 + 10^9 + 10^9: fits
      std::uint64_t const v = acc[i + j] + std::uint64_t{a[i]} * b[j] + carry;
      acc[i + j] = v % kLimb;
      carry = v / kLimb;
    }
    for (std::size_t k = i + b.size(); carry != 0; ++k) {
      std::uint64_t const v = acc[k] + carry;
      acc[k] = v % kLimb;
      carry = v / kLimb;
    }
  }
  natural n(acc.begin(), acc.end());
  while (!n.empty() && n.back() == 0) n.pop_back();
  return n;
}

natural plus(natural a, natural const& b) {
  a.resize(std::max(a.size(), b.size()) + 1, 0);
  std::uint32_t carry = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::uint32_t const v = a[i] + (i < b.size() ? b[i] : 0) + carry;
    carry = v >= kLimb ? 1 : 0;
    a[i] = v - carry * kLimb;
  }
  while (!a.empty() && a.back() == 0) a.pop_back();
  return a;
}

/// a - b, or nullopt when b > a.
std::optional<natural> minus(natural a, natural const& b) {
  if (b.size() > a.size()) return std::nullopt;
  std::int64_t borrow = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    std::int64_t v = std::int64_t{a[i]} - (i < b.size() ? b[i] : 0) - borrow;
    borrow = v < 0 ? 1 : 0;
    a[i] = static_cast<std::uint32_t>(v + borrow * kLimb);
  }
  if (borrow != 0) return std::nullopt;
  while (!a.empty() && a.back() == 0) a.pop_back();
  return a;
}

/// "B^E", "B^E+N" or "B^E-N" (digits each) as digits; nullopt when text is not of that form.
std::optional<std::string> power_with_offset(std::string_view option, std::string_view text) {
  std::size_t const caret = text.find('^');
  if (caret == std::string_view::npos) return std::nullopt;
  std::string_view const base = text.substr(0, caret);
  std::string_view exponent = text.substr(caret + 1);
  std::size_t const sign = exponent.find_first_of("+-");
  char const op = sign == std::string_view::npos ? '\0' : exponent[sign];
  std::string_view const offset = op == '\0' ? std::string_view() : exponent.substr(sign + 1);
  exponent = exponent.substr(0, sign);
  if (!all_digits(base) || !all_digits(exponent) || (op != '\0' && !all_digits(offset))) return std::nullopt;
  auto const too_large = [&] {
    bad(option, text, "is too large (B^E may have at most " + std::to_string(kMaxPowerDigits) + " digits)");
  };
  std::uint64_t e = 0;
  natural const b = natural_of(base);
  // B^E has floor(E log10 B) + 1 digits: refused before any arithmetic when that is well past the
  // most, and counted exactly once computed.
  bool const big = b.size() > 1 || (b.size() == 1 && b[0] > 1);
  if (big) {
    std::string_view const lead = base.substr(base.find_first_not_of('0'));
    double const log10_base = static_cast<double>(lead.size() - std::min<std::size_t>(lead.size(), 15)) +
                              std::log10(std::stod(std::string(lead.substr(0, 15))));
    if (!to_u64(exponent, e) || static_cast<double>(e) * log10_base > kMaxPowerDigits + 1) too_large();
  } else if (!to_u64(exponent, e)) {
    e = 1;  // 0^E or 1^E, E past 2^64: the same as E = 1
  }
  natural value{1};
  for (natural square = b; e != 0; e >>= 1) {  // square and multiply
    if ((e & 1) != 0) value = times(value, square);
    if (e > 1) square = times(square, square);
  }
  if (digits_of(value).size() > kMaxPowerDigits) too_large();
  if (op != '\0') {
    natural const n = natural_of(offset);
    if (op == '+') {
      value = plus(std::move(value), n);
    } else if (auto const less = minus(std::move(value), n)) {
      value = *less;
    } else {
      bad(option, text, "must be at least 1");
    }
  }
  return digits_of(value);
}

}  // namespace

std::string parse_positive(std::string_view option, std::string_view text) {
  std::optional<std::string> const power = power_with_offset(option, text);
  if (!power && !all_digits(text))
    bad(option, text, "is not a positive whole number (digits, or a power: 10^20, 2^64-1, 10^30+7)");
  std::string_view const digits = power ? std::string_view(*power) : text;
  auto const first = digits.find_first_not_of('0');
  if (first == std::string_view::npos) bad(option, text, "must be at least 1");
  return std::string(digits.substr(first));
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

std::chrono::nanoseconds parse_duration(std::string_view option, std::string_view text) {
  constexpr char const* kWhat = "is not a duration (a number, then ms, s, m or h; bare: seconds)";
  std::size_t const number = std::min(text.find_first_not_of("0123456789."), text.size());
  std::string_view const digits = text.substr(0, number);
  std::string_view const unit = text.substr(number);
  std::size_t const dot = digits.find('.');
  std::string_view const whole = digits.substr(0, dot);
  std::string_view const fraction = dot == std::string_view::npos ? std::string_view() : digits.substr(dot + 1);
  if (whole.empty() && fraction.empty()) bad(option, text, kWhat);
  if (fraction.find('.') != std::string_view::npos) bad(option, text, kWhat);
  std::int64_t scale = 0;  // nanoseconds per unit
  if (unit.empty() || unit == "s") scale = 1'000'000'000;
  if (unit == "ms") scale = 1'000'000;
  if (unit == "m") scale = 60'000'000'000;
  if (unit == "h") scale = 3'600'000'000'000;
  if (scale == 0) bad(option, text, "has an unknown unit (use ms, s, m or h; bare: seconds)");
  std::uint64_t units = 0;
  if (!whole.empty() && !to_u64(whole, units)) bad(option, text, "is too long");
  if (units > static_cast<std::uint64_t>(INT64_MAX / scale)) bad(option, text, "is too long");
  std::int64_t ns = static_cast<std::int64_t>(units) * scale;
  std::int64_t place = scale;  // what one digit is worth at this decimal place
  for (char c : fraction) {
    place /= 10;
    std::int64_t const add = (c - '0') * place;
    if (ns > INT64_MAX - add) bad(option, text, "is too long");
    ns += add;
  }
  return std::chrono::nanoseconds(ns);
}

namespace {

/// "random:MIN..MAX" of an option whose values `one` reads (it throws for a bad value); `form` is
/// what the option's values look like, for the message. nullopt when text has no "random:".
template <class One>
std::optional<std::pair<std::uint64_t, std::uint64_t>> random_range(std::string_view option, std::string_view text,
                                                                    std::string_view form, One one) {
  if (text.substr(0, 7) != "random:") return std::nullopt;
  std::string_view const range = text.substr(7);
  std::size_t const dots = range.find("..");
  if (dots == std::string_view::npos) bad(option, text, "must look like " + std::string(form));
  std::pair<std::uint64_t, std::uint64_t> const r{one(range.substr(0, dots)), one(range.substr(dots + 2))};
  if (r.first > r.second) bad(option, text, "has MIN above MAX");
  return r;
}

}  // namespace

write_sizes_text parse_write_sizes(std::string_view text, std::string_view option) {
  auto const one = [&](std::string_view size) {
    std::uint64_t const n = parse_size(option, size);
    if (n == 0 || n > kMaxWriteSize) bad(option, text, "needs sizes from 1 to 256M");
    return n;
  };
  write_sizes_text w;
  if (auto const range = random_range(option, text, "random:MIN..MAX", one)) {
    std::tie(w.lo, w.hi) = *range;
    return w;
  }
  for (std::size_t start = 0;;) {
    std::size_t const comma = std::min(text.find(',', start), text.size());
    w.list.push_back(one(text.substr(start, comma - start)));
    if (comma == text.size()) return w;
    start = comma + 1;
  }
}

std::chrono::nanoseconds parse_positive_duration(std::string_view option, std::string_view whole,
                                                 std::string_view text) {
  std::chrono::nanoseconds const d = parse_duration(option, text);
  if (d.count() == 0)
    throw std::invalid_argument(std::string(option) + ": '" + std::string(whole) + "' needs a time above 0");
  return d;
}

stall_text parse_stall(std::string_view text) {
  std::string const whole(text);
  stall_text s;
  s.random = text.rfind("random:", 0) == 0;
  if (s.random) text.remove_prefix(7);
  std::size_t const colon = text.find(':');
  if (colon == std::string_view::npos)
    throw std::invalid_argument("--stall: '" + whole + "' is not N:T or random:N:T (e.g. 1M:300ms)");
  s.every = parse_size("--stall", text.substr(0, colon));
  if (s.every == 0) throw std::invalid_argument("--stall: '" + whole + "' needs a byte count above 0");
  s.pause = parse_positive_duration("--stall", whole, text.substr(colon + 1));
  return s;
}

burst_text parse_burst(std::string_view text) {
  std::size_t const slash = text.find('/');
  if (slash == std::string_view::npos)
    throw std::invalid_argument("--burst: '" + std::string(text) + "' is not ON/OFF (e.g. 100ms/2s)");
  return {parse_positive_duration("--burst", text, text.substr(0, slash)),
          parse_positive_duration("--burst", text, text.substr(slash + 1))};
}

line_lengths parse_line_length(std::string_view text) {
  auto const one = [&](std::string_view size) {
    std::uint64_t const n = parse_size("--line-length", size);
    if (n == 0 || n > kMaxLineLength) bad("--line-length", text, "needs lengths from 1 to 1M (the newline included)");
    return n;
  };
  line_lengths l;
  if (auto const range = random_range("--line-length", text, "L or random:MIN..MAX", one)) {
    std::tie(l.shortest, l.longest) = *range;
    l.random = true;
    return l;
  }
  l.shortest = l.longest = one(text);
  return l;
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

}  // namespace fizzgen::parse
