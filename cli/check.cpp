#include "cli/check.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <system_error>

namespace fizzgen::check {
namespace {

constexpr std::uint64_t kMaxPeriod = 1 << 16;        // table entries: 512 KiB at most
constexpr std::size_t kMaxTableWords = 1 << 24;      // word bytes the table may hold
constexpr std::size_t kShowMax = 200;                // bytes of a bad line kept for display
constexpr std::size_t kReadSize = std::size_t{1} << 20;

__extension__ typedef unsigned __int128 u128;  // only for N mod d at start-up

std::uint64_t mod_decimal(std::string_view digits, std::uint64_t d) noexcept {
  std::uint64_t r = 0;
  for (char c : digits) r = static_cast<std::uint64_t>((u128{r} * 10 + static_cast<unsigned>(c - '0')) % d);
  return r;
}

bool valid_from(std::string_view s) noexcept {
  return !s.empty() && s.front() != '0' &&
         std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

checker::checker(options const& o) : number_(o.from), rules_(o.rules) {
  if (!valid_from(o.from)) throw std::invalid_argument("check: --from must be a positive decimal without leading zeros");
  if (rules_.empty()) rules_ = {{3, "Fizz"}, {5, "Buzz"}};
  for (rule const& r : rules_)
    if (r.divisor == 0 || r.word.empty() || r.word.find('\n') != std::string::npos)
      throw std::invalid_argument("check: a rule needs a divisor > 0 and a non-empty word without newline");
  number_ += '\n';

  // The period is the lcm of the divisors; a small one lets one table lookup name each line.
  std::uint64_t period = 1;
  for (rule const& r : rules_) {
    std::uint64_t const g = std::gcd(period, r.divisor);
    if (period / g > kMaxPeriod / r.divisor) { period = 0; break; }
    period = period / g * r.divisor;
  }
  if (period != 0 && period <= kMaxPeriod) {
    table_.resize(period);
    for (std::uint64_t m = 0; m < period && !table_.empty(); ++m) {
      std::size_t const start = words_.size();
      for (rule const& r : rules_)
        if (m % r.divisor == 0) words_ += r.word;
      if (words_.size() == start) { table_[m] = {0, 0}; continue; }
      words_ += '\n';
      if (words_.size() > kMaxTableWords) { table_.clear(); words_.clear(); }  // fall back to residues
      else table_[m] = {static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(words_.size() - start)};
    }
  }
  if (!table_.empty()) {
    phase_ = mod_decimal(o.from, table_.size());
  } else {
    for (rule const& r : rules_) residues_.push_back(mod_decimal(o.from, r.divisor));
    line_.clear();
    for (std::size_t i = 0; i < rules_.size(); ++i)
      if (residues_[i] == 0) line_ += rules_[i].word;
    if (!line_.empty()) line_ += '\n';
  }
}

// The expected line for the current N, with its '\n'.
std::string_view checker::expected() const noexcept {
  if (!table_.empty()) {
    entry const e = table_[phase_];
    if (e.size != 0) return {words_.data() + e.offset, e.size};
    return number_;
  }
  return line_.empty() ? std::string_view(number_) : std::string_view(line_);
}

// N -> N + 1.
void checker::advance() noexcept {
  char& last = number_[number_.size() - 2];
  if (last != '9') ++last;
  else carry_digit();
  if (!table_.empty()) {
    if (++phase_ == table_.size()) phase_ = 0;
    return;
  }
  line_.clear();
  for (std::size_t i = 0; i < rules_.size(); ++i) {
    if (++residues_[i] == rules_[i].divisor) residues_[i] = 0;  // r < d, so r + 1 cannot overflow
    if (residues_[i] == 0) line_ += rules_[i].word;  // capacity is kept: no allocation once warm
  }
  if (!line_.empty()) line_ += '\n';
}

// The slow part of the increment: trailing 9s become 0s; all 9s grow the number by one digit.
void checker::carry_digit() noexcept {
  std::size_t i = number_.size() - 1;  // at the '\n'
  while (i > 0 && number_[i - 1] == '9') number_[--i] = '0';
  if (i > 0) ++number_[i - 1];
  else number_.insert(number_.begin(), '1');
}

// Verifies whole lines while the rest of the expected line fits in [p, end); returns where it
// stopped. Comparing the expected line and its '\n' needs no search for the newline.
char const* checker::verify_lines(char const* p, char const* end) noexcept {
  char const* const start = p;
  for (;;) {
    std::string_view const e = expected();
    if (static_cast<std::size_t>(end - p) < e.size()) break;
    if (std::memcmp(p, e.data(), e.size()) != 0) break;
    p += e.size();
    ++lines_;
    advance();
  }
  bytes_ += static_cast<std::uint64_t>(p - start);
  return p;
}

bool checker::feed(std::string_view data) {
  char const* p = data.data();
  char const* const end = p + data.size();
  if (failed_) {
    collect(p, end);
    return collecting_;
  }
  while (p != end) {
    if (partial_ == 0) p = verify_lines(p, end);
    if (p == end) break;
    // Either the line is wrong or the data ends inside it: match what is there as a prefix.
    std::string_view const e = expected();
    std::size_t const n = std::min(e.size() - partial_, static_cast<std::size_t>(end - p));
    if (std::memcmp(p, e.data() + partial_, n) != 0) {
      fail(p, end);
      return collecting_;
    }
    p += n;
    partial_ += n;
    if (partial_ == e.size()) {
      bytes_ += partial_;
      partial_ = 0;
      ++lines_;
      advance();
    }
  }
  return true;
}

// The current line is bad; its first bytes are the partial_ matched ones, then [p, end).
void checker::fail(char const* p, char const* end) {
  std::string_view const e = expected();
  failed_ = true;
  collecting_ = true;
  failure_.ok = false;
  failure_.bad_line = lines_ + 1;
  failure_.bad_offset = bytes_;
  failure_.expected.assign(e.data(), e.size() - 1);
  collect(e.data(), e.data() + partial_);  // no '\n' in there: partial_ < e.size()
  collect(p, end);
}

// Appends the bad line's bytes until its '\n' or kShowMax bytes.
void checker::collect(char const* p, char const* end) {
  std::string& a = failure_.actual;
  for (; collecting_ && p != end; ++p) {
    if (*p == '\n') {
      collecting_ = false;
      failure_.reason = a.empty() ? "empty line" : "wrong line";
    } else if (a.size() == kShowMax) {
      collecting_ = false;
      failure_.actual_truncated = true;
      failure_.reason = "wrong line";
    } else {
      a += *p;
    }
  }
}

result checker::finish() {
  if (failed_) {
    if (collecting_) failure_.reason = "wrong cut-off final line";  // the stream ended inside it
    collecting_ = false;
    result r = failure_;
    r.lines = lines_;
    r.bytes = bytes_;
    return r;
  }
  result r;
  r.lines = lines_;
  r.bytes = bytes_ + partial_;
  r.tail_bytes = partial_;
  return r;
}

result check_fd(int fd, options const& o) {
  checker c(o);
  auto const buf = std::make_unique_for_overwrite<char[]>(kReadSize);
  for (;;) {
    ssize_t const n = ::read(fd, buf.get(), kReadSize);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw std::system_error(errno, std::generic_category(), "read");
    }
    if (n == 0 || !c.feed({buf.get(), static_cast<std::size_t>(n)})) break;
  }
  return c.finish();
}

namespace {

// Quotes a line for a terminal: printable ASCII as is, the rest as \xNN, long text cut with "...".
std::string show(std::string_view s, bool truncated) {
  std::string out;
  for (unsigned char c : s.substr(0, kShowMax)) {
    if (c == '\'' || c == '\\' || c < 0x20 || c >= 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", static_cast<unsigned>(c));
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  if (truncated || s.size() > kShowMax) out += "...";
  return out;
}

}  // namespace

int check_main(options const& o, int fd, std::FILE* out, std::FILE* err) {
  result r;
  try {
    r = check_fd(fd, o);
  } catch (std::system_error const& e) {
    std::fprintf(err, "fizzgen check: %s\n", e.what());
    return 1;
  }
  if (r.ok) {
    std::fprintf(out, "fizzgen check: OK: %" PRIu64 " lines, %" PRIu64 " bytes", r.lines, r.bytes);
    if (r.tail_bytes != 0) std::fprintf(out, " (final line cut off after %" PRIu64 " bytes)", r.tail_bytes);
    std::fputc('\n', out);
    std::fflush(out);
    return 0;
  }
  std::fprintf(err, "fizzgen check: line %" PRIu64 " (byte offset %" PRIu64 "): expected '%s', got '%s'",
               r.bad_line, r.bad_offset, show(r.expected, false).c_str(),
               show(r.actual, r.actual_truncated).c_str());
  if (r.reason != "wrong line") std::fprintf(err, " (%s)", r.reason.c_str());
  std::fputc('\n', err);
  return 1;
}

}  // namespace fizzgen::check
