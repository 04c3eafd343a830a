#include "generators/width_plan.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

namespace fizzgen {

std::uint64_t rule_period(rule_set const& rules, std::uint64_t cap) {
  std::uint64_t p = 1;
  for (auto const& r : rules) {
    std::uint64_t const g = std::gcd(p, r.divisor);
    if (p / g > cap / r.divisor) return 0;
    p = p / g * r.divisor;
  }
  return p;
}

std::uint64_t lines_before_rollover(std::string_view n) noexcept {
  constexpr std::size_t kExact = 19;  // 10^19 < 2^64
  std::size_t const d = n.size();
  std::size_t const head = d > kExact ? d - kExact : 0;
  for (std::size_t i = 0; i < head; ++i)
    if (n[i] != '9') return UINT64_MAX;  // at least 10^19 lines away
  std::uint64_t tail = 0, pow10 = 1;
  for (std::size_t i = head; i < d; ++i) {
    tail = tail * 10 + static_cast<std::uint64_t>(n[i] - '0');
    pow10 *= 10;
  }
  return pow10 - tail;
}

char* plain_lines(char* p, line_state& s, rule_set const& rules, std::uint64_t count) noexcept {
  std::size_t const n_rules = rules.size();
  std::uint64_t* const residue = s.residue;
  for (std::uint64_t line = 0; line < count; ++line) {
    bool matched = false;
    for (std::size_t r = 0; r < n_rules; ++r) {
      if (residue[r] == 0) {
        std::memcpy(p, rules[r].word.data(), rules[r].word.size());
        p += rules[r].word.size();
        matched = true;
      }
      if (++residue[r] == rules[r].divisor) residue[r] = 0;
    }
    if (!matched) {
      std::memcpy(p, s.digits, s.width);
      p += s.width;
    }
    *p++ = '\n';
    // Decimal increment in place: trailing nines roll over to zeros, and all nines to a 1 and
    // zeros, one digit wider (line_state keeps a byte for it).
    std::size_t i = s.width;
    while (i > 0 && s.digits[i - 1] == '9') s.digits[--i] = '0';
    if (i == 0) {
      s.digits[s.width++] = '0';
      s.digits[0] = '1';
    } else {
      ++s.digits[i - 1];
    }
  }
  return p;
}

width_plan::width_plan(decimal const& from, rule_set const& rules, std::optional<std::uint64_t> total_lines,
                       std::size_t chunk_bytes, std::function<double(std::size_t)> const& line_bytes,
                       std::function<std::size_t(std::size_t)> const& longest, period_bytes_fn const& period_bytes)
    : from_(from), rules_(rules), total_lines_(total_lines), from_mod30_(from.mod(30)) {
  for (auto const& r : rules_) from_residues_.push_back(from_.mod(r.divisor));
  // One segment per digit width until line offsets leave 64 bits. Chunk sizes follow the average
  // line of the width, so chunks stay near chunk_bytes as numbers grow.
  std::uint64_t chunk = 0;
  for (std::size_t width = from_.digits().size();; ++width) {
    segment seg;
    seg.first_line = segments_.empty() ? 0 : segments_.back().end_line;
    std::string power_of_ten(width + 1, '0');  // 10^width: the first number one digit wider
    power_of_ten[0] = '1';
    decimal const next_width = *decimal::parse(power_of_ten);
    seg.end_line = next_width.minus(from_).value_or(UINT64_MAX);
    std::uint64_t lines =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(chunk_bytes) / line_bytes(width)));
    // Whole rule periods per chunk keep every chunk of the segment at the same phase.
    std::uint64_t const period = rule_period(rules_, lines);
    if (period != 0 && period <= lines) lines -= lines % period;
    seg.lines_per_chunk = lines;
    seg.first_chunk = chunk;
    max_lines_ = std::max(max_lines_, lines);
    std::size_t bound = static_cast<std::size_t>(lines) * longest(width);
    // Every residue of the period occurs lines / period times in any chunk of whole periods, at any
    // phase; the segment's last chunk holds fewer lines.
    if (period_bytes && period != 0 && period <= std::min(lines, kExactPeriod))
      bound = std::min<std::size_t>(bound, lines / period * period_bytes(width, period));
    capacity_ = std::max(capacity_, bound);
    segments_.push_back(seg);
    if (seg.end_line == UINT64_MAX) break;
    chunk += (seg.end_line - seg.first_line + lines - 1) / lines;
  }
}

std::optional<chunk> width_plan::plan(std::uint64_t index) const noexcept {
  // Segments are few (one per digit width): a linear search is the simplest correct lookup.
  segment const* seg = &segments_.front();
  for (segment const& s : segments_)
    if (s.first_chunk <= index) seg = &s;
  std::uint64_t const k = index - seg->first_chunk;
  if (k > (seg->end_line - seg->first_line) / seg->lines_per_chunk) return std::nullopt;
  std::uint64_t const first = seg->first_line + k * seg->lines_per_chunk;
  std::uint64_t const end = std::min(seg->end_line, total_lines_.value_or(UINT64_MAX));
  if (first >= end) return std::nullopt;
  return chunk{index, first, std::min(seg->lines_per_chunk, end - first)};
}

namespace {

/// Digits start() has room for: from + any 64-bit offset, whose carry adds at most one digit.
std::size_t sum_digits(decimal const& from) noexcept { return std::max<std::size_t>(from.digits().size(), 20) + 1; }

/// The digit bytes of a line_state: the sum, one more for a roll-over, the slack; 8-aligned.
std::size_t digit_bytes(decimal const& from) noexcept {
  return (sum_digits(from) + 1 + width_plan::kDigitSlack + 7) / 8 * 8;
}

}  // namespace

std::size_t width_plan::max_width() const noexcept { return sum_digits(from_) + 1; }

std::size_t width_plan::scratch_bytes() const noexcept {
  return digit_bytes(from_) + rules_.size() * sizeof(std::uint64_t);
}

line_state width_plan::start(chunk const& c, std::byte* scratch) const noexcept {
  line_state s;
  s.digits = reinterpret_cast<char*>(scratch);
  s.residue = reinterpret_cast<std::uint64_t*>(scratch + digit_bytes(from_));
  // from + first_line, as decimal::plus does it, in place: from's digits right-aligned in room
  // for the sum, the offset added from the units up, then the leading zeros dropped.
  std::size_t const room = sum_digits(from_);
  std::string_view const f = from_.digits();
  std::memset(s.digits, '0', room - f.size());
  std::memcpy(s.digits + (room - f.size()), f.data(), f.size());
  std::uint64_t n = c.first_line;
  unsigned carry = 0;
  for (std::size_t i = room; i > 0 && (n != 0 || carry != 0); --i) {
    unsigned const d = static_cast<unsigned>(s.digits[i - 1] - '0') + static_cast<unsigned>(n % 10) + carry;
    n /= 10;
    carry = d / 10;
    s.digits[i - 1] = static_cast<char>('0' + d % 10);
  }
  std::size_t lead = 0;
  while (lead + 1 < room && s.digits[lead] == '0') ++lead;
  s.width = room - lead;
  std::memmove(s.digits, s.digits + lead, s.width);
  std::memset(s.digits + s.width, 0,
              room + 1 + kDigitSlack - s.width);  // what the table path's copies read past the digits
  for (std::size_t r = 0; r < rules_.size(); ++r)
    s.residue[r] = static_cast<std::uint64_t>(
        (static_cast<uint128>(from_residues_[r]) + c.first_line % rules_[r].divisor) % rules_[r].divisor);
  return s;
}

}  // namespace fizzgen
