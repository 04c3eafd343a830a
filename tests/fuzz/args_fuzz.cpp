// libFuzzer target: the option parsers of cli/args.hpp on any text. Each either returns what a
// plain reference computes, or throws std::invalid_argument with one non-empty line that starts
// with the option's name, exactly when the reference rejects the text. Any other exception, a
// crash or a sanitizer report is a finding.
// Input: one byte picks the parser (p s t r, else the byte mod 4), the rest is the text.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "cli/args.hpp"
#include "fuzz_input.hpp"

namespace {

__extension__ using u128 = unsigned __int128;

bool digits_only(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s)
    if (c < '0' || c > '9') return false;
  return true;
}

/// The value of a digit string when it fits in 64 bits.
std::optional<std::uint64_t> value_of(std::string_view s) {
  u128 v = 0;
  for (char c : s) {
    v = v * 10 + static_cast<unsigned>(c - '0');
    if (v > UINT64_MAX) return std::nullopt;
  }
  return static_cast<std::uint64_t>(v);
}

std::optional<std::uint64_t> reference_size(std::string_view text) {
  std::size_t n = 0;
  while (n < text.size() && text[n] >= '0' && text[n] <= '9') ++n;
  if (n == 0) return std::nullopt;
  auto const value = value_of(text.substr(0, n));
  if (!value) return std::nullopt;
  std::string_view const suffix = text.substr(n);
  // GNU head's reading: b; K M G T P E Z Y (k and m too) alone or with iB (1024^n), with B or D (1000^n).
  // Z and Y are 2^70 and 2^80 and up: anything but 0 times them is past 2^64.
  u128 multiplier = 0;
  bool huge = false;
  if (suffix.empty()) multiplier = 1;
  if (suffix == "b") multiplier = 512;
  std::string_view const prefixes = "KMGTPEZY";
  for (std::size_t i = 0; i < prefixes.size(); ++i) {
    u128 k1000 = 1, k1024 = 1;
    for (std::size_t j = 0; j <= i && j < 6; ++j) k1000 *= 1000, k1024 *= 1024;
    std::string const upper(1, prefixes[i]);
    std::string const lower = upper == "K" ? "k" : upper == "M" ? "m" : upper;
    for (std::string const& p : {upper, lower}) {
      bool const by1024 = suffix == p || suffix == p + "iB";
      bool const by1000 = suffix == p + "B" || suffix == p + "D";
      if (by1024) multiplier = k1024;
      if (by1000) multiplier = k1000;
      huge = huge || ((by1024 || by1000) && i >= 6);
    }
  }
  if (multiplier == 0) return std::nullopt;
  if (huge) return *value == 0 ? std::optional<std::uint64_t>(0) : std::nullopt;
  u128 const bytes = u128{*value} * multiplier;
  if (bytes > UINT64_MAX) return std::nullopt;
  return static_cast<std::uint64_t>(bytes);
}

std::string strip_zeros(std::string_view s) {
  std::size_t const first = s.find_first_not_of('0');
  return first == std::string_view::npos ? "0" : std::string(s.substr(first));
}

/// a * b of digit strings, digit by digit.
std::string multiply(std::string const& a, std::string const& b) {
  std::string out(a.size() + b.size(), '0');
  for (std::size_t i = a.size(); i-- > 0;) {
    unsigned carry = 0;
    for (std::size_t j = b.size(); j-- > 0;) {
      unsigned const v = static_cast<unsigned>(out[i + j + 1] - '0') +
                         static_cast<unsigned>(a[i] - '0') * static_cast<unsigned>(b[j] - '0') + carry;
      out[i + j + 1] = static_cast<char>('0' + v % 10);
      carry = v / 10;
    }
    out[i] = static_cast<char>(out[i] + carry);
  }
  return strip_zeros(out);
}

/// a + b (sign +1) or a - b (sign -1; nullopt below 0) of digit strings, digit by digit.
std::optional<std::string> add(std::string a, std::string b, int sign) {
  std::size_t const n = std::max(a.size(), b.size()) + 1;
  a.insert(0, n - a.size(), '0');
  b.insert(0, n - b.size(), '0');
  int carry = 0;
  for (std::size_t i = n; i-- > 0;) {
    int v = (a[i] - '0') + sign * (b[i] - '0') + carry;
    carry = v < 0 ? -1 : v / 10;
    a[i] = static_cast<char>('0' + (v + 10) % 10);
  }
  if (carry != 0) return std::nullopt;
  return strip_zeros(a);
}

/// parse_positive's value of text by the plain reading: digits; or B^E, B^E+N, B^E-N computed by
/// E multiplications (nullopt: refused). `known` is false where the power is too large to compute
/// here but perhaps not too large for the parser (then only the form of its answer is checked).
std::optional<std::string> reference_positive(std::string_view text, bool& known) {
  known = true;
  std::optional<std::string> value;
  std::size_t const caret = text.find('^');
  if (caret == std::string_view::npos) {
    if (!digits_only(text)) return std::nullopt;
    value = strip_zeros(text);
  } else {
    std::string_view const base = text.substr(0, caret);
    std::string_view rest = text.substr(caret + 1);
    std::size_t const sign = rest.find_first_of("+-");
    std::string_view const exponent = rest.substr(0, sign);
    std::string_view const offset = sign == std::string_view::npos ? "0" : rest.substr(sign + 1);
    if (!digits_only(base) || !digits_only(exponent) || !digits_only(offset)) return std::nullopt;
    std::string const b = strip_zeros(base);
    std::string const e = strip_zeros(exponent);
    std::string power;
    if (b == "0" || b == "1") {
      power = e == "0" ? "1" : b;
    } else {
      auto const times = value_of(e);
      // B^E has at least E (digits(B) - 1) + 1 digits and at most E digits(B); at most 20000 pass.
      if (!times || *times * (b.size() - 1) + 1 > 20000) return std::nullopt;
      if (*times * b.size() > 600) {
        known = false;
        return std::nullopt;
      }
      power = "1";
      for (std::uint64_t i = 0; i < *times; ++i) power = multiply(power, b);
    }
    value = add(power, strip_zeros(offset), sign != std::string_view::npos && rest[sign] == '-' ? -1 : 1);
  }
  if (!value || *value == "0") return std::nullopt;
  return value;
}

/// One line, non-empty, naming the option first.
void check_message(std::invalid_argument const& e, std::string_view option) {
  std::string_view const what = e.what();
  if (what.empty() || what.find('\n') != std::string_view::npos) std::abort();
  if (what.substr(0, option.size()) != option) std::abort();
}

void require(bool ok) {
  if (!ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  namespace cli = fizzgen::cli;
  fuzz::input in(data, size);
  std::uint8_t const pick = in.byte();
  std::string const text(in.rest());
  switch (pick == 'p' ? 0 : pick == 's' ? 1 : pick == 't' ? 2 : pick == 'r' ? 3 : pick % 4) {
    case 0: {
      bool known = true;
      auto const want = reference_positive(text, known);
      try {
        std::string const got = cli::parse_positive("--from", text);
        if (known) require(want && got == *want);
        require(digits_only(got) && got.front() != '0');
      } catch (std::invalid_argument const& e) {
        require(!known || !want);
        check_message(e, "--from");
      }
      break;
    }
    case 1: {
      auto const want = reference_size(text);
      try {
        std::uint64_t const got = cli::parse_size("--bytes", text);
        require(want && got == *want);
      } catch (std::invalid_argument const& e) {
        require(!want);
        check_message(e, "--bytes");
      }
      break;
    }
    case 2: {
      // Made once, not assigned and reset: GCC 12 took the latter's value for uninitialized.
      auto const want = [&]() -> std::optional<std::uint64_t> {
        auto const v = digits_only(text) ? value_of(text) : std::nullopt;
        return v && *v != 0 && *v <= cli::kMaxThreads ? v : std::nullopt;
      }();
      try {
        unsigned const got = cli::parse_threads(text);
        require(want && got == *want);
      } catch (std::invalid_argument const& e) {
        require(!want);
        check_message(e, "--threads");
      }
      break;
    }
    default: {
      auto const colon = text.find(':');
      std::string_view const divisor = std::string_view(text).substr(0, colon);
      std::string const word = colon == std::string::npos ? "" : text.substr(colon + 1);
      auto const want = [&]() -> std::optional<std::uint64_t> {
        auto const v = colon != std::string::npos && digits_only(divisor) ? value_of(divisor) : std::nullopt;
        return v && *v != 0 && !word.empty() && word.find('\n') == std::string::npos ? v : std::nullopt;
      }();
      try {
        cli::rule_text const got = cli::parse_rule(text);
        require(want && got.divisor == *want && got.word == word);
      } catch (std::invalid_argument const& e) {
        require(!want);
        check_message(e, "--rule");
      }
      break;
    }
  }
  return 0;
}
