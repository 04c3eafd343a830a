#include "generators/fizzbuzz.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

namespace fizzgen {
namespace {

/// lcm of the divisors, or 0 when it exceeds `cap`.
std::uint64_t rule_period(rule_set const& rules, std::uint64_t cap) {
  std::uint64_t p = 1;
  for (auto const& r : rules) {
    std::uint64_t const g = std::gcd(p, r.divisor);
    if (p / g > cap / r.divisor) return 0;
    p = p / g * r.divisor;
  }
  return p;
}

}  // namespace

fizzbuzz::fizzbuzz(decimal from, rule_set rules, std::optional<std::uint64_t> total_lines,
                   std::size_t chunk_bytes)
    : from_(std::move(from)), rules_(std::move(rules)) {
  for (auto const& r : rules_) from_residues_.push_back(from_.mod(r.divisor));
  // The longest line any chunk can hold: line offsets are 64-bit, so no number has more digits
  // than from + 2^64 - 1.
  std::size_t words = 0;
  for (auto const& r : rules_) words += r.word.size();
  std::size_t const max_line = std::max(from_.plus(UINT64_MAX).digits().size(), words) + 1;
  std::uint64_t lines = std::max<std::size_t>(1, chunk_bytes / max_line);
  // Whole rule periods per chunk keep every chunk starting at the same phase when possible.
  if (std::uint64_t const period = rule_period(rules_, lines); period != 0 && period <= lines)
    lines -= lines % period;
  plan_ = line_plan{lines, total_lines};
  capacity_ = static_cast<std::size_t>(lines) * max_line;
}

std::size_t fizzbuzz::fill(chunk const& c, std::span<std::byte> out) const noexcept {
  char* const begin = reinterpret_cast<char*>(out.data());
  char* p = begin;
  std::string number(from_.plus(c.first_line).digits());
  std::size_t const n_rules = rules_.size();
  // Residues of the current line number; a rule matches when its residue is zero.
  std::vector<std::uint64_t> residue(n_rules);
  for (std::size_t r = 0; r < n_rules; ++r)
    residue[r] = static_cast<std::uint64_t>(
        (static_cast<uint128>(from_residues_[r]) + c.first_line % rules_[r].divisor) %
        rules_[r].divisor);

  for (std::uint64_t line = 0; line < c.lines; ++line) {
    bool matched = false;
    for (std::size_t r = 0; r < n_rules; ++r) {
      if (residue[r] == 0) {
        std::memcpy(p, rules_[r].word.data(), rules_[r].word.size());
        p += rules_[r].word.size();
        matched = true;
      }
      if (++residue[r] == rules_[r].divisor) residue[r] = 0;
    }
    if (!matched) {
      std::memcpy(p, number.data(), number.size());
      p += number.size();
    }
    *p++ = '\n';
    // Decimal increment in place: trailing nines roll over to zeros.
    auto i = number.size();
    while (i > 0 && number[i - 1] == '9') number[--i] = '0';
    if (i == 0)
      number.insert(number.begin(), '1');
    else
      ++number[i - 1];
  }
  return static_cast<std::size_t>(p - begin);
}

}  // namespace fizzgen
