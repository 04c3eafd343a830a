#include "verify/check.hpp"

#include <unistd.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cinttypes>
#include <cstdint>
#include <cstring>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <system_error>

#include "verify/input.hpp"

namespace fizzgen::check {
namespace {

constexpr std::uint64_t kMaxPeriod = 1 << 16;    // table entries: 512 KiB at most
constexpr std::size_t kMaxTableWords = 1 << 24;  // word bytes the table may hold
constexpr std::size_t kReadSize = std::size_t{1} << 20;
constexpr std::size_t kPad = 32;                    // readable bytes past every expected line, for same32()
constexpr std::size_t kMaxDecadeDigits = kPad + 1;  // the high digits fit one 32-byte compare
constexpr std::size_t kMaxDecadeText = 1 << 20;     // bytes of all decade templates
constexpr std::uint64_t kAll32 = 0xffffffffu;

__extension__ typedef unsigned __int128 u128;  // only for N mod d at start-up

std::uint64_t mod_decimal(std::string_view digits, std::uint64_t d) noexcept {
  std::uint64_t r = 0;
  for (char c : digits) r = static_cast<std::uint64_t>((u128{r} * 10 + static_cast<unsigned>(c - '0')) % d);
  return r;
}

bool valid_from(std::string_view s) noexcept {
  return !s.empty() && s.front() != '0' && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Bit i is set when a[i] == b[i], for i < 16; both may be read 16 bytes far.
inline std::uint32_t same16(char const* a, char const* b) noexcept {
#if defined(__SSE2__)
  __m128i const x = _mm_loadu_si128(reinterpret_cast<__m128i const*>(a));
  __m128i const y = _mm_loadu_si128(reinterpret_cast<__m128i const*>(b));
  return static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(x, y)));
#else
  std::uint32_t m = 0;
  for (unsigned i = 0; i < 16; ++i) m |= std::uint32_t{a[i] == b[i]} << i;
  return m;
#endif
}

// Bit i is set when a[i] == b[i], for i < 32; both may be read 32 bytes far.
inline std::uint64_t same32(char const* a, char const* b) noexcept {
  return same16(a, b) | std::uint64_t{same16(a + 16, b + 16)} << 16;
}

// lcm of the divisors, or 0 when it is above kMaxPeriod.
std::uint64_t small_period(std::vector<rule> const& rules) noexcept {
  std::uint64_t period = 1;
  for (rule const& r : rules) {
    std::uint64_t const g = std::gcd(period, r.divisor);
    if (period / g > kMaxPeriod / r.divisor) return 0;
    period = period / g * r.divisor;
  }
  return period;
}

}  // namespace

checker::checker(options const& o) : number_(o.from), rules_(o.rules) {
  if (!valid_from(o.from))
    throw std::invalid_argument("check: --from must be a positive decimal without leading zeros");
  if (rules_.empty()) rules_ = {{3, "Fizz"}, {5, "Buzz"}};
  for (rule const& r : rules_)
    if (r.divisor == 0 || r.word.empty() || r.word.find('\n') != std::string::npos)
      throw std::invalid_argument("check: a rule needs a divisor > 0 and a non-empty word without newline");
  number_ += '\n';
  number_size_ = number_.size();
  number_.append(kPad, '\0');

  if (std::uint64_t const period = small_period(rules_); period != 0) build_table(period);
  if (table_.empty()) {
    for (rule const& r : rules_) residues_.push_back(mod_decimal(o.from, r.divisor));
    build_line();
    return;
  }
  phase_ = mod_decimal(o.from, table_.size());
  decade_step_ = std::gcd(table_.size(), std::size_t{10});
  std::size_t longest = kMaxDecadeDigits + 1;
  for (entry const& e : table_) longest = std::max<std::size_t>(longest, e.size);
  decades_on_ = 10 * longest <= UINT16_MAX &&  // number_at offsets
                table_.size() / decade_step_ * 10 * longest <= kMaxDecadeText;
}

// table_[m] names the words line of every N with N mod period == m.
void checker::build_table(std::uint64_t period) {
  table_.resize(period);
  for (std::uint64_t m = 0; m < period; ++m) {
    std::size_t const start = words_.size();
    for (rule const& r : rules_)
      if (m % r.divisor == 0) words_ += r.word;
    if (words_.size() == start) {
      table_[m] = {0, 0};
      continue;
    }
    words_ += '\n';
    if (words_.size() > kMaxTableWords) {  // long words: count residues instead
      table_.clear();
      words_.clear();
      return;
    }
    table_[m] = {static_cast<std::uint32_t>(start), static_cast<std::uint32_t>(words_.size() - start)};
  }
  words_.append(kPad, '\0');
}

// The expected line for the current N, with its '\n'.
std::string_view checker::expected() const noexcept {
  if (!table_.empty()) {
    entry const e = table_[phase_];
    if (e.size != 0) return {words_.data() + e.offset, e.size};
    return {number_.data(), number_size_};
  }
  if (line_size_ != 0) return {line_.data(), line_size_};
  return {number_.data(), number_size_};
}

// N -> N + 1.
void checker::advance() noexcept {
  char& last = number_[number_size_ - 2];
  if (last != '9')
    ++last;
  else
    carry_digit();
  if (!table_.empty()) {
    if (++phase_ == table_.size()) phase_ = 0;
    return;
  }
  for (std::size_t i = 0; i < rules_.size(); ++i)
    if (++residues_[i] == rules_[i].divisor) residues_[i] = 0;  // r < d, so r + 1 cannot overflow
  build_line();
}

// The words line of N from the residues; line_ keeps its capacity, so no allocation once warm.
void checker::build_line() {
  line_.clear();
  for (std::size_t i = 0; i < rules_.size(); ++i)
    if (residues_[i] == 0) line_ += rules_[i].word;
  if (line_.empty()) {
    line_size_ = 0;
    return;
  }
  line_ += '\n';
  line_size_ = line_.size();
  line_.append(kPad, '\0');
}

// The slow part of the increment: trailing 9s become 0s; all 9s grow the number by one digit.
void checker::carry_digit() noexcept {
  std::size_t i = number_size_ - 1;  // at the '\n'
  while (i > 0 && number_[i - 1] == '9') number_[--i] = '0';
  if (i > 0) {
    ++number_[i - 1];
  } else {
    number_.insert(number_.begin(), '1');
    ++number_size_;
  }
}

// Templates for the decades of `digits`-digit numbers, one per N mod period (N ends in 0, so
// N mod period is a multiple of decade_step_). Rebuilt when the number gains a digit.
void checker::build_decades(std::size_t digits) {
  decade_digits_ = digits;
  decades_.clear();
  decade_text_.clear();
  decade_ignored_.clear();
  std::string open;  // per template byte: 1 when the template does not fix it
  std::size_t const period = table_.size();
  for (std::size_t phase = 0; phase < period; phase += decade_step_) {
    decade d{};
    d.offset = static_cast<std::uint32_t>(decade_text_.size());
    for (std::size_t j = 0; j < 10; ++j) {
      entry const t = table_[(phase + j) % period];
      if (t.size != 0) {
        decade_text_.append(words_, t.offset, t.size);
        open.append(t.size, 0);
      } else {
        d.number_at[d.numbers++] = static_cast<std::uint16_t>(decade_text_.size() - d.offset);
        decade_text_.append(digits - 1, '\0');  // the high digits: compared with number_
        open.append(digits - 1, 1);
        decade_text_ += static_cast<char>('0' + j);
        decade_text_ += '\n';
        open.append(2, 0);
      }
    }
    d.size = static_cast<std::uint32_t>(decade_text_.size() - d.offset);
    std::size_t const pad = (kPad - d.size % kPad) % kPad;
    decade_text_.append(pad, '\0');
    open.append(pad, 1);
    decades_.push_back(d);
  }
  for (std::size_t c = 0; c < open.size(); c += kPad) {
    std::uint32_t mask = 0;
    for (std::size_t i = 0; i < kPad; ++i) mask |= std::uint32_t{open[c + i] != 0} << i;
    decade_ignored_.push_back(mask);
  }
}

// Ten lines per step, from an N that ends in 0: a few 32-byte compares against the template, and
// one of each number line's high digits against those of N. No state changes per line, and the
// one store per step (N += 10) is far from the loads. Stops at a mismatch (verify_short_lines
// then finds the line), near the end of the data, or when N gains a digit.
char const* checker::verify_decades(char const* p, char const* end) {
  std::size_t const digits = number_size_ - 1;
  if (!decades_on_ || digits < 2 || digits > kMaxDecadeDigits || number_[digits - 1] != '0') return p;
  if (digits != decade_digits_) build_decades(digits);
  std::size_t const period = table_.size();
  std::size_t const step = 10 % period;
  std::size_t phase = phase_;
  std::uint64_t lines = lines_;
  char* const num = number_.data();
  std::uint64_t const past_high = ~std::uint64_t{0} << (digits - 1);
  for (;;) {
    decade const& d = decades_[phase / decade_step_];
    if (static_cast<std::size_t>(end - p) < d.size + kPad) break;
    char const* const t = decade_text_.data() + d.offset;
    std::uint32_t const* const open = decade_ignored_.data() + d.offset / kPad;
    bool ok = true;
    for (std::size_t c = 0; c * kPad < d.size; ++c)
      ok &= ((same32(p + c * kPad, t + c * kPad) | open[c]) & kAll32) == kAll32;
    for (std::size_t i = 0; i < d.numbers; ++i)
      ok &= ((same32(p + d.number_at[i], num) | past_high) & kAll32) == kAll32;
    if (!ok) break;
    p += d.size;
    lines += 10;
    phase += step;
    if (phase >= period) phase -= period;
    // N += 10: the tens digit and its carry; the last digit stays 0.
    if (num[digits - 2] != '9') {
      ++num[digits - 2];
      continue;
    }
    num[digits - 1] = '9';
    carry_digit();
    if (number_size_ != digits + 1) break;  // one digit more (number_ may have moved)
  }
  phase_ = phase;
  lines_ = lines;
  return p;
}

// The hot loop of the table case, everything in locals. At least kPad input bytes are left, so a
// line of up to kPad bytes is compared with one 32-byte compare, without a branch on its length.
// Stops at anything else: a long line, a mismatch, the end of the data.
char const* checker::verify_short_lines(char const* p, char const* end) noexcept {
  entry const* const table = table_.data();
  std::size_t const period = table_.size();
  char const* const words = words_.data();
  char* num = number_.data();
  std::size_t num_size = number_size_;
  // The last digit lives in a register: a byte store followed by a wide load over it would
  // stall store forwarding on every line. number_ gets it back on the way out.
  char last = num[num_size - 2];
  std::size_t phase = phase_;
  std::uint64_t lines = lines_;
  while (static_cast<std::size_t>(end - p) >= kPad) {
    entry const t = table[phase];
    bool const is_word = t.size != 0;
    char const* const e = (is_word ? words : num) + t.offset;  // selects, no branch
    std::size_t const n = is_word ? t.size : num_size;
    if (n > kPad) break;
    // Bytes past the line, and the last digit, do not count.
    std::uint64_t const ignored = (~std::uint64_t{0} << n) | (std::uint64_t{!is_word} << (n - 2));
    bool const text_ok = ((same32(p, e) | ignored) & kAll32) == kAll32;
    bool const digit_ok = is_word | (p[n - 2] == last);
    if (!(text_ok & digit_ok)) break;
    p += n;
    ++lines;
    if (++phase == period) phase = 0;
    if (++last > '9') {
      num[num_size - 2] = '9';
      carry_digit();  // may grow number_
      num = number_.data();
      num_size = number_size_;
      last = '0';
      if (decades_on_ && num_size - 1 <= kMaxDecadeDigits) break;  // N ends in 0: verify_decades
    }
  }
  num[num_size - 2] = last;
  phase_ = phase;
  lines_ = lines;
  return p;
}

// Verifies whole lines while the rest of the expected line fits in [p, end); returns where it
// stopped. Comparing the expected line and its '\n' needs no search for the newline.
char const* checker::verify_lines(char const* p, char const* end) {
  char const* const start = p;
  for (;;) {
    if (!table_.empty()) {
      char const* const q = verify_short_lines(verify_decades(p, end), end);
      if (q != p) {  // progress: perhaps at the start of a decade again
        p = q;
        continue;
      }
    }
    // One line the fast paths left: a long one, a bad one, or one near the end of the data.
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

std::size_t longest_line(options const& o) {
  std::size_t words = 0;
  if (o.rules.empty()) {
    words = std::string_view("FizzBuzz").size();  // the classic 3:Fizz 5:Buzz
  } else {
    for (rule const& r : o.rules) words += r.word.size();
  }
  std::size_t const digits = std::max<std::size_t>(o.from.size(), 20) + 1;  // 2^64 - 1 has 20
  return std::max(digits, words) + 1;
}

std::string add_decimal(std::string digits, std::uint64_t n) {
  for (auto i = digits.size(); i-- > 0 && n != 0;) {
    std::uint64_t const sum = static_cast<std::uint64_t>(digits[i] - '0') + n % 10;
    n = n / 10 + sum / 10;
    digits[i] = static_cast<char>('0' + sum % 10);
  }
  return n == 0 ? digits : std::to_string(n) + digits;
}

namespace {

// a < b for decimals without leading zeros.
bool less_decimal(std::string_view a, std::string_view b) noexcept {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

// a - b for decimals without leading zeros, a >= b; nullopt when above 2^64-1.
std::optional<std::uint64_t> difference(std::string_view a, std::string_view b) {
  std::string d(a);
  int borrow = 0;
  for (std::size_t i = 0; i < d.size(); ++i) {
    std::size_t const at = d.size() - 1 - i;
    int v = (d[at] - '0') - borrow - (i < b.size() ? b[b.size() - 1 - i] - '0' : 0);
    borrow = v < 0 ? 1 : 0;
    d[at] = static_cast<char>('0' + v + 10 * borrow);
  }
  std::string_view digits(d);
  digits.remove_prefix(std::min(digits.find_first_not_of('0'), digits.size()));
  std::uint64_t value = 0;
  auto const [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc{} || end != digits.data() + digits.size())
    return digits.empty() ? 0 : std::optional<std::uint64_t>{};
  return value;
}

std::string count_of(std::uint64_t n, char const* unit) { return std::to_string(n) + " " + unit + (n == 1 ? "" : "s"); }

}  // namespace

std::optional<std::uint64_t> lines_between(std::string_view from, std::string_view to) {
  if (!valid_from(from) || !valid_from(to))
    throw std::invalid_argument("check: --from and --to must be positive decimals");
  if (less_decimal(to, from))
    throw std::invalid_argument("check: --to " + std::string(to) + " is below --from " + std::string(from));
  std::optional<std::uint64_t> const d = difference(to, from);
  if (!d || *d == UINT64_MAX) return std::nullopt;
  return *d + 1;
}

std::string judge_length(result const& r, options const& o) {
  std::optional<std::uint64_t> const lines = o.lines, bytes = o.bytes;
  if (!lines && !bytes) return r.bytes == 0 ? "empty input (nothing arrived; --count 0 says that nothing must)" : "";
  bool const whole = r.tail_bytes == 0;
  bool const ended_by_lines = lines && r.lines == *lines && whole && (!bytes || r.bytes <= *bytes);
  bool const ended_by_bytes =
      bytes && r.bytes == *bytes && (!lines || r.lines < *lines || (r.lines == *lines && whole));
  if (ended_by_lines || ended_by_bytes) return "";

  std::string expected = lines && bytes ? count_of(*lines, "line") + " or " + count_of(*bytes, "byte") +
                                              " (whichever ends the stream first)"
                         : lines ? count_of(*lines, "line")
                                 : count_of(*bytes, "byte");
  std::string received = count_of(r.lines, "line") + ", " + count_of(r.bytes, "byte");
  if (!whole) received += " (the last line cut off after " + count_of(r.tail_bytes, "byte") + ")";
  std::string const head = "expected " + expected + ", received " + received + ": ";
  bool const past_lines = lines && (r.lines > *lines || (r.lines == *lines && !whole));
  if (past_lines) return head + "more than expected, from line " + std::to_string(*lines + 1);
  if (bytes && r.bytes > *bytes) return head + "more than expected, from byte offset " + std::to_string(*bytes);
  return head + "the stream ends early, at line " + std::to_string(r.lines + 1) + " (byte offset " +
         std::to_string(r.bytes) + ")";
}

result check_fd(int fd, options const& o) {
  checker c(o);
  // The pipe's size is left alone on purpose: a vmsplice writer may size its buffer reuse by it.
  auto const buf = std::make_unique_for_overwrite<char[]>(kReadSize);
  for (;;) {
    ssize_t const n = read_input(fd, buf.get(), kReadSize);
    if (n < 0) throw std::system_error(static_cast<int>(-n), std::generic_category(), "read");
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

// When the bad line is a number M other than this line's N: M > N says lines were lost (as
// many as M - N), M < N that an earlier line came again. "" when the line is not a number.
std::string number_hint(options const& o, result const& r) {
  std::string_view const m = r.actual;
  if (!valid_from(m)) return "";
  std::string const n = add_decimal(o.from, r.bad_line - 1);
  if (m == n) return "";
  if (less_decimal(m, n)) return "the line for " + std::string(m) + " again: a repeat or a reorder";
  std::optional<std::uint64_t> const lost = difference(m, n);
  return "the line for " + std::string(m) + ": " +
         (lost ? count_of(*lost, "line") : std::string("more than 2^64 lines")) + " missing before it";
}

}  // namespace

int check_main(options const& o, int fd, std::FILE* out, std::FILE* err, unsigned threads) {
  result r;
  try {
    if (o.morse && o.bytes) throw std::invalid_argument("--bytes: a Morse stream is checked by lines (--count, --to)");
    r = threads > 1 || o.morse ? check_fd_parallel(fd, o, threads) : check_fd(fd, o);
  } catch (std::system_error const& e) {
    std::fprintf(err, "fizzgen check: %s\n", e.what());
    return 1;
  }
  if (r.ok) {
    if (std::string const wrong = judge_length(r, o); !wrong.empty()) {
      std::fprintf(err, "fizzgen check: %s\n", wrong.c_str());
      return 1;
    }
    std::fprintf(out, "fizzgen check: OK: %s, %s", count_of(r.lines, "line").c_str(),
                 count_of(r.bytes, "byte").c_str());
    if (r.tail_bytes != 0) std::fprintf(out, " (final line cut off after %s)", count_of(r.tail_bytes, "byte").c_str());
    std::fputc('\n', out);
    std::fflush(out);
    return 0;
  }
  std::fprintf(err, "fizzgen check: line %" PRIu64 " (byte offset %" PRIu64 "): expected '%s', got '%s'", r.bad_line,
               r.bad_offset, show(r.expected, false).c_str(), show(r.actual, r.actual_truncated).c_str());
  if (r.reason != "wrong line") std::fprintf(err, " (%s)", r.reason.c_str());
  std::string const hint = r.reason == "wrong line" && !r.actual_truncated ? number_hint(o, r) : "";
  if (!hint.empty()) std::fprintf(err, " (%s)", hint.c_str());
  std::fputc('\n', err);
  return 1;
}

}  // namespace fizzgen::check
