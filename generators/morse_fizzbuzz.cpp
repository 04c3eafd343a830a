#include "generators/morse_fizzbuzz.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "generators/morse_codec.hpp"
#include "generators/morse_table.hpp"

namespace fizzgen {
namespace {

/// The Morse block kernel for a kernel arch, by name: arch.hpp describes the plain FizzBuzz
/// kernels, and the Morse ones follow the same instruction sets. nullptr for "scalar".
morse_blocks_fn kernel_for(kernel_arch const& arch) noexcept {
  if (arch.blocks == nullptr) return nullptr;
  if (arch.name == "avx512vbmi" || arch.name == "avx512bw") return morse_fizzbuzz_blocks_avx512bw;
  if (arch.name == "avx2") return morse_fizzbuzz_blocks_avx2;
  if (arch.name == "sse4.2") return morse_fizzbuzz_blocks_sse4_2;
  return nullptr;
}

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

/// A number's Morse line at width d: five symbols and a space per digit, the last space taken
/// back by the newline.
constexpr std::uint64_t number_line_bytes(std::size_t width) noexcept { return 6 * std::uint64_t{width}; }

/// Bytes of the word lines over one rule period (capped), and how many lines there are numbers:
/// with number_line_bytes, what sizes chunks at every width.
struct line_sample {
  std::uint64_t lines = 0, word_bytes = 0, number_lines = 0;
};

line_sample sample_lines(rule_set const& rules) {
  constexpr std::uint64_t kSample = 3000;  // lines sampled when the period is longer
  std::uint64_t const period = rule_period(rules, kSample);
  line_sample s;
  s.lines = period != 0 ? period : kSample;
  for (std::uint64_t i = 0; i < s.lines; ++i) {
    std::string words;
    for (auto const& r : rules)
      if (i % r.divisor == 0) words += r.word;
    if (words.empty())
      ++s.number_lines;
    else
      s.word_bytes += morse::encode(words).size() + 1;
  }
  return s;
}

/// The most Morse bytes a line of words can take: every character's code and space, unshortened.
std::size_t words_line_bound(rule_set const& rules) noexcept {
  std::size_t bytes = 1;  // the newline
  for (auto const& r : rules)
    for (char c : r.word) bytes += morse::code_of(static_cast<unsigned char>(c)).size() + 1;
  return bytes;
}

}  // namespace

morse_fizzbuzz::morse_fizzbuzz(decimal from, rule_set rules, std::optional<std::uint64_t> total_lines,
                               std::size_t chunk_bytes, kernel_arch const& arch)
    : from_(std::move(from)), rules_(std::move(rules)), total_lines_(total_lines), arch_(&arch) {
  for (auto const& r : rules_) from_residues_.push_back(from_.mod(r.divisor));
  if (rules_ == classic_rules()) kernel_ = kernel_for(arch);
  from_mod30_ = from_.mod(30);
  longest_plain_ = 1;
  for (auto const& r : rules_) longest_plain_ += r.word.size();
  std::size_t const words_bound = words_line_bound(rules_);
  line_sample const sample = sample_lines(rules_);

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
    double const line = static_cast<double>(sample.word_bytes + sample.number_lines * number_line_bytes(width)) /
                        static_cast<double>(sample.lines);
    std::uint64_t lines =
        std::max<std::uint64_t>(1, static_cast<std::uint64_t>(static_cast<double>(chunk_bytes) / line));
    // Whole rule periods per chunk keep every chunk of the segment at the same phase.
    if (std::uint64_t const period = rule_period(rules_, lines); period != 0 && period <= lines)
      lines -= lines % period;
    seg.lines_per_chunk = lines;
    seg.first_chunk = chunk;
    max_lines_ = std::max(max_lines_, lines);
    std::uint64_t const longest = std::max<std::uint64_t>(number_line_bytes(width), words_bound);
    capacity_ = std::max(capacity_, static_cast<std::size_t>(lines * longest));
    segments_.push_back(seg);
    if (seg.end_line == UINT64_MAX) break;
    chunk += (seg.end_line - seg.first_line + lines - 1) / lines;
  }
  // The kernel and the encoder store a little past the last line.
  capacity_ += std::max(kMorseKernelSlack, morse::kStoreSlack);
}

std::optional<chunk> morse_fizzbuzz::plan(std::uint64_t index) const noexcept {
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

char* morse_fizzbuzz::scalar_lines(char* out, std::string& number, std::vector<std::uint64_t>& residue,
                                   std::uint64_t count) const noexcept {
  // The plain lines, a batch at a time, then the encoder over the batch: each line ends in '\n',
  // which takes back its last space, so encoding lines together equals encoding them one by one.
  std::size_t const line_max = std::max(number.size() + 2, longest_plain_);
  std::uint64_t const batch = std::max<std::uint64_t>(1, 8192 / line_max);
  std::string plain(static_cast<std::size_t>(std::min(batch, count)) * line_max, '\0');
  std::size_t const n_rules = rules_.size();
  while (count > 0) {
    std::uint64_t const n = std::min(batch, count);
    char* p = plain.data();
    for (std::uint64_t line = 0; line < n; ++line) {
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
    out += morse::encode_eager({plain.data(), static_cast<std::size_t>(p - plain.data())}, out);
    count -= n;
  }
  return out;
}

std::size_t morse_fizzbuzz::fill(chunk const& c, std::span<std::byte> out) const noexcept {
  char* const begin = reinterpret_cast<char*>(out.data());
  std::string number(from_.plus(c.first_line).digits());
  std::vector<std::uint64_t> residue(rules_.size());
  for (std::size_t r = 0; r < rules_.size(); ++r)
    residue[r] = static_cast<std::uint64_t>(
        (static_cast<uint128>(from_residues_[r]) + c.first_line % rules_[r].divisor) % rules_[r].divisor);
  if (kernel_ == nullptr) return static_cast<std::size_t>(scalar_lines(begin, number, residue, c.lines) - begin);

  // Classic rules: residues mod 3 and 5 are the same after 30 lines, so the kernel's blocks leave
  // them right for the scalar lines around them.
  char* p = begin;
  std::uint64_t mod30 = (from_mod30_ + c.first_line % 30) % 30;
  for (std::uint64_t left = c.lines; left > 0;) {
    std::size_t const width = number.size();
    bool const kernel_width = width >= 2 && width - 1 <= kMorseMaxPrefix;
    std::uint64_t const same_width = lines_before_rollover(number);
    std::uint64_t const blocks = mod30 == 1 && kernel_width ? std::min(left, same_width) / 30 : 0;
    if (blocks > 0) {
      // The kernel rewrites the prefix (all digits but the units, which stays 1) in place.
      p = kernel_(p, number.data(), width - 1, blocks);
      left -= blocks * 30;
      continue;
    }
    // Up to the next 30k+1, or to the roll-over, or everything when the kernel cannot help.
    std::uint64_t n = (31 - mod30) % 30;
    if (n == 0) n = std::min<std::uint64_t>(same_width, 30);
    if (!kernel_width) n = left;
    n = std::min(n, left);
    p = scalar_lines(p, number, residue, n);
    mod30 = (mod30 + n) % 30;
    left -= n;
  }
  return static_cast<std::size_t>(p - begin);
}

}  // namespace fizzgen
