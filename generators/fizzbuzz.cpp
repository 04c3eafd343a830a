#include "generators/fizzbuzz.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

namespace fizzgen {
namespace {

constexpr std::size_t kCopy = 32;  ///< bytes copied at once by the table path

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

/// Writes `count` lines the obvious way, one at a time, advancing number and residues. This is
/// the path for custom rules, for the few lines around a digit roll-over and for widths the
/// vector kernel does not take.
char* scalar_lines(char* p, std::string& number, std::vector<std::uint64_t>& residue, rule_set const& rules,
                   std::uint64_t count) noexcept {
  std::size_t const n_rules = rules.size();
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
  return p;
}

/// 10^d - n for the d-digit number n: how many lines keep the current width. Saturates.
std::uint64_t lines_before_rollover(std::string const& n) noexcept {
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

/// Average line length at a digit width, over one rule period (capped): what sizes chunks.
double average_line(rule_set const& rules, std::size_t width) {
  constexpr std::uint64_t kSample = 3000;  // lines sampled when the period is longer
  std::uint64_t const period = rule_period(rules, kSample);
  std::uint64_t const n = period != 0 ? period : kSample;
  std::uint64_t bytes = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::size_t line = 0;
    for (auto const& r : rules)
      if (i % r.divisor == 0) line += r.word.size();
    bytes += (line == 0 ? width : line) + 1;
  }
  return static_cast<double>(bytes) / static_cast<double>(n);
}

}  // namespace

fizzbuzz::fizzbuzz(decimal from, rule_set rules, std::optional<std::uint64_t> total_lines, std::size_t chunk_bytes,
                   kernel_arch const& arch)
    : from_(std::move(from)), rules_(std::move(rules)), total_lines_(total_lines), arch_(&arch) {
  for (auto const& r : rules_) from_residues_.push_back(from_.mod(r.divisor));
  classic_ = rules_ == classic_rules() && arch_->blocks != nullptr;
  from_mod30_ = from_.mod(30);
  std::size_t words = 0;
  for (auto const& r : rules_) words += r.word.size();

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
    double const line = average_line(rules_, width);
    std::uint64_t lines =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(chunk_bytes) / line));
    // Whole rule periods per chunk keep every chunk of the segment at the same phase.
    if (std::uint64_t const period = rule_period(rules_, lines); period != 0 && period <= lines)
      lines -= lines % period;
    seg.lines_per_chunk = lines;
    seg.first_chunk = chunk;
    max_lines_ = std::max(max_lines_, lines);
    capacity_ = std::max(capacity_, static_cast<std::size_t>(lines) * (std::max(width, words) + 1));
    segments_.push_back(seg);
    if (seg.end_line == UINT64_MAX) break;
    chunk += (seg.end_line - seg.first_line + lines - 1) / lines;
  }
  if (!classic_ && rules_ != classic_rules()) {
    period_ = rule_period(rules_, kMaxTablePeriod);
    for (std::uint64_t i = 0; i < period_; ++i) {
      table_entry e{static_cast<std::uint32_t>(table_words_.size()), 0};
      for (auto const& r : rules_)
        if (i % r.divisor == 0) table_words_ += r.word;
      e.length = static_cast<std::uint32_t>(table_words_.size() - e.offset);
      table_.push_back(e);
    }
    table_words_.append(kCopy, '\0');
    if (period_ != 0) from_mod_period_ = from_.mod(period_);
  }
  // The vector kernel, and the table path's fixed-size copies, store past the last line.
  capacity_ += std::max(arch_->vector_bytes, kCopy);
}

char* fizzbuzz::table_lines(char* p, std::string const& first, std::uint64_t phase,
                            std::uint64_t count) const noexcept {
  // The number with padding, so that it too can be copied kCopy bytes at a time. Chunks never mix
  // digit widths, so the width stays fixed.
  std::size_t const width = first.size();
  std::vector<char> number(width + kCopy, '\0');
  std::memcpy(number.data(), first.data(), width);
  char* const last = number.data() + width - 1;
  char const* const words = table_words_.data();
  for (std::uint64_t line = 0; line < count; ++line) {
    table_entry const e = table_[phase];
    char const* src = e.length != 0 ? words + e.offset : number.data();
    std::size_t const n = e.length != 0 ? e.length : width;
    if (n <= kCopy)
      std::memcpy(p, src, kCopy);  // one fixed-size copy: the tail is overwritten by what follows
    else
      std::memcpy(p, src, n);
    p += n;
    *p++ = '\n';
    if (++phase == period_) phase = 0;
    if (*last != '9') {
      ++*last;
    } else {
      char* d = last;
      while (*d == '9' && d > number.data()) *d-- = '0';
      ++*d;  // chunks never cross a width, so only the increment after the last line can overflow,
             // and that value is never written
    }
  }
  return p;
}

std::optional<chunk> fizzbuzz::plan(std::uint64_t index) const noexcept {
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

std::size_t fizzbuzz::fill(chunk const& c, std::span<std::byte> out) const noexcept {
  char* const begin = reinterpret_cast<char*>(out.data());
  std::string number(from_.plus(c.first_line).digits());
  std::vector<std::uint64_t> residue(rules_.size());
  for (std::size_t r = 0; r < rules_.size(); ++r)
    residue[r] = static_cast<std::uint64_t>(
        (static_cast<uint128>(from_residues_[r]) + c.first_line % rules_[r].divisor) % rules_[r].divisor);
  if (!classic_) {
    if (period_ == 0) return static_cast<std::size_t>(scalar_lines(begin, number, residue, rules_, c.lines) - begin);
    std::uint64_t const phase = (from_mod_period_ + c.first_line % period_) % period_;
    return static_cast<std::size_t>(table_lines(begin, number, phase, c.lines) - begin);
  }

  char* p = begin;
  std::uint64_t mod30 = (from_mod30_ + c.first_line % 30) % 30;
  for (std::uint64_t left = c.lines; left > 0;) {
    std::size_t const width = number.size();
    std::uint64_t const same_width = lines_before_rollover(number);
    std::uint64_t const blocks = mod30 == 1 ? std::min(left, same_width) / 30 : 0;
    if (blocks > 0 && width >= 2 && width - 1 <= arch_->max_prefix) {
      // The kernel rewrites the prefix (all digits but the units, which stays 1) in place.
      p = arch_->blocks(p, number.data(), width - 1, blocks);
      left -= blocks * 30;
      continue;
    }
    // Up to the next 30k+1, or to the roll-over, or everything when the kernel cannot help.
    std::uint64_t n = (31 - mod30) % 30;
    if (n == 0) n = std::min<std::uint64_t>(same_width, 30);
    if (width < 2 || width - 1 > arch_->max_prefix) n = left;
    n = std::min(n, left);
    p = scalar_lines(p, number, residue, rules_, n);
    mod30 = (mod30 + n) % 30;
    left -= n;
  }
  return static_cast<std::size_t>(p - begin);
}

}  // namespace fizzgen
