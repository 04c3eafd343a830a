#include "generators/fizzbuzz.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

namespace fizzgen {
namespace {

constexpr std::size_t kCopy = 32;  ///< bytes copied at once by the table path

/// The bytes of the lines with offsets 0..n-1 from a multiple of every divisor, at a digit width.
std::uint64_t first_lines_bytes(rule_set const& rules, std::size_t width, std::uint64_t n) {
  std::uint64_t bytes = 0;
  for (std::uint64_t i = 0; i < n; ++i) {
    std::size_t line = 0;
    for (auto const& r : rules)
      if (i % r.divisor == 0) line += r.word.size();
    bytes += (line == 0 ? width : line) + 1;
  }
  return bytes;
}

/// Average line length at a digit width, over one rule period (capped): what sizes chunks.
double average_line(rule_set const& rules, std::size_t width) {
  constexpr std::uint64_t kSample = 3000;  // lines sampled when the period is longer
  std::uint64_t const period = rule_period(rules, kSample);
  std::uint64_t const n = period != 0 ? period : kSample;
  return static_cast<double>(first_lines_bytes(rules, width, n)) / static_cast<double>(n);
}

}  // namespace

fizzbuzz::fizzbuzz(decimal const& from, rule_set rules, std::optional<std::uint64_t> total_lines,
                   std::size_t chunk_bytes, kernel_arch const& arch)
    : rules_(std::move(rules)),
      plan_(
          from, rules_, total_lines, chunk_bytes, [this](std::size_t width) { return average_line(rules_, width); },
          [this](std::size_t width) {
            std::size_t words = 0;
            for (auto const& r : rules_) words += r.word.size();
            return std::max(width, words) + 1;
          },
          [this](std::size_t width, std::uint64_t period) { return first_lines_bytes(rules_, width, period); }),
      capacity_(plan_.capacity()),
      arch_(&arch) {
  classic_ = rules_ == classic_rules() && arch_->blocks != nullptr;
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
    if (period_ != 0) from_mod_period_ = from.mod(period_);
    if (arch_->rules != nullptr) template_ = rule_template::build(rules_, period_);
    if (template_) {
      from_mod_block_ = from.mod(template_->block_lines);
      // The widths the stream reaches: offsets stay below 2^64, so at most 20 more digits.
      std::size_t const first = from.digits().size();
      std::size_t const last =
          total_lines ? from.plus(std::max<std::uint64_t>(*total_lines, 1) - 1).digits().size() : first + 20;
      template_->plan_widths(first, last, arch_->vector_bytes, arch_->rules_lane);
    }
  }
  // The vector kernel, and the table path's fixed-size copies, store past the last line. After
  // that (64-aligned wherever out starts) the fill's scratch: the line state, then the template
  // kernel's vectors, so that fill allocates nothing.
  capacity_ += std::max(arch_->vector_bytes, kCopy);
  scratch_offset_ = capacity_;
  template_scratch_ = (plan_.scratch_bytes() + 63) / 64 * 64;
  capacity_ += 64 + template_scratch_ + (template_ ? template_->scratch_bytes : 0);
}

char* fizzbuzz::table_lines(char* p, line_state& first, std::uint64_t phase, std::uint64_t count) const noexcept {
  // The number is followed by width_plan::kDigitSlack >= kCopy readable bytes, so that it too can
  // be copied kCopy bytes at a time. Chunks never mix digit widths, so the width stays fixed.
  static_assert(width_plan::kDigitSlack >= kCopy);
  std::size_t const width = first.width;
  char* const digits = first.digits;
  char* const last = digits + width - 1;
  char const* const words = table_words_.data();
  for (std::uint64_t line = 0; line < count; ++line) {
    table_entry const e = table_[phase];
    char const* src = e.length != 0 ? words + e.offset : digits;
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
      while (*d == '9' && d > digits) *d-- = '0';
      ++*d;  // chunks never cross a width, so only the increment after the last line can overflow,
             // and that value is never written
    }
  }
  return p;
}

std::size_t fizzbuzz::fill_at(chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept {
  char* const begin = reinterpret_cast<char*>(out.data() + at);
  std::byte* const scratch = align_up_64(out.data() + scratch_offset_);
  line_state s = plan_.start(c, scratch);
  auto const scalar = [&](char* p, std::uint64_t n) { return plain_lines(p, s, rules_, n); };
  if (!classic_) {
    if (period_ == 0) return static_cast<std::size_t>(scalar(begin, c.lines) - begin);
    // Chunks never mix widths, so the template kernel takes a whole chunk or none of it.
    if (template_ && s.width >= 2) {
      std::uint64_t const q = template_->block_lines;
      std::uint64_t const phase = (from_mod_block_ + c.first_line % q) % q;
      if (char* end = arch_->rules(begin, *template_, s.digits, s.width, phase, c.lines, scratch + template_scratch_))
        return static_cast<std::size_t>(end - begin);
    }
    std::uint64_t const phase = (from_mod_period_ + c.first_line % period_) % period_;
    return static_cast<std::size_t>(table_lines(begin, s, phase, c.lines) - begin);
  }
  std::uint64_t const mod30 = (plan_.from_mod30() + c.first_line % 30) % 30;
  return static_cast<std::size_t>(classic_walk(begin, s, mod30, c.lines, arch_->max_prefix, arch_->blocks, scalar) -
                                  begin);
}

}  // namespace fizzgen
