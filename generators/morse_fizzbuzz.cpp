#include "generators/morse_fizzbuzz.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>

#include "generators/morse_codec.hpp"
#include "generators/morse_table.hpp"

namespace fizzgen {
namespace {

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

/// The longest plain line of words, newline included.
std::size_t longest_plain(rule_set const& rules) noexcept {
  std::size_t bytes = 1;
  for (auto const& r : rules) bytes += r.word.size();
  return bytes;
}

}  // namespace

morse_fizzbuzz::morse_fizzbuzz(decimal const& from, rule_set rules, std::optional<std::uint64_t> total_lines,
                               std::size_t chunk_bytes, kernel_arch const& arch)
    : rules_(std::move(rules)),
      longest_plain_(longest_plain(rules_)),
      plan_(
          from, rules_, total_lines, chunk_bytes,
          [sample = sample_lines(rules_)](std::size_t width) {
            return static_cast<double>(sample.word_bytes + sample.number_lines * number_line_bytes(width)) /
                   static_cast<double>(sample.lines);
          },
          [words = words_line_bound(rules_)](std::size_t width) {
            return std::max(static_cast<std::size_t>(number_line_bytes(width)), words);
          }),
      // The kernel and the encoder store a little past the last line. After that (64-aligned
      // wherever out starts) the fill's scratch: the line state, then a batch of plain lines for
      // the encoder, so that fill allocates nothing.
      scratch_offset_(plan_.capacity() + std::max(kMorseKernelSlack, morse::kStoreSlack)),
      plain_offset_((plan_.scratch_bytes() + 63) / 64 * 64),
      plain_bytes_(std::max({kPlainBatch, plan_.max_width() + 2, longest_plain_})),
      capacity_(scratch_offset_ + 64 + plain_offset_ + plain_bytes_),
      arch_(&arch) {
  if (rules_ == classic_rules()) kernel_ = arch.morse_blocks;
  if (kernel_ == nullptr && arch.morse_rules != nullptr) {
    // The widths the stream reaches: offsets stay below 2^64, so at most 20 more digits.
    std::size_t const first = from.digits().size();
    std::size_t const last =
        total_lines ? from.plus(std::max<std::uint64_t>(*total_lines, 1) - 1).digits().size() : first + 20;
    rules_plans_ = morse_rules_template::build(rules_, first, last, arch.vector_bytes);
  }
  if (rules_plans_) {
    from_mod_q_ = from.mod(rules_plans_->period_lines);
    rules_offset_ = (plain_offset_ + plain_bytes_ + 63) / 64 * 64;
    capacity_ = scratch_offset_ + 64 + rules_offset_ + rules_plans_->scratch_bytes;
  }
}

char* morse_fizzbuzz::scalar_lines(char* out, line_state& s, char* plain, std::uint64_t count) const noexcept {
  // The plain lines, a batch at a time, then the encoder over the batch: each line ends in '\n',
  // which takes back its last space, so encoding lines together equals encoding them one by one.
  // A batch takes at most max(kPlainBatch, line_max) <= plain_bytes_ bytes.
  std::size_t const line_max = std::max(s.width + 2, longest_plain_);
  std::uint64_t const batch = std::max<std::uint64_t>(1, kPlainBatch / line_max);
  while (count > 0) {
    std::uint64_t const n = std::min(batch, count);
    char* const p = plain_lines(plain, s, rules_, n);
    out += morse::encode_eager({plain, static_cast<std::size_t>(p - plain)}, out, *arch_);
    count -= n;
  }
  return out;
}

std::size_t morse_fizzbuzz::fill_at(chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept {
  char* const begin = reinterpret_cast<char*>(out.data() + at);
  std::byte* const scratch = align_up_64(out.data() + scratch_offset_);
  line_state s = plan_.start(c, scratch);
  char* const plain = reinterpret_cast<char*>(scratch + plain_offset_);
  auto const scalar = [&](char* p, std::uint64_t n) { return scalar_lines(p, s, plain, n); };
  if (rules_plans_) {
    // Chunks never mix widths, so the plan kernel takes a whole chunk or none of it.
    if (morse_rules_plan const* plan = rules_plans_->plan_for(s.width)) {
      std::uint64_t const q = rules_plans_->period_lines;
      std::uint64_t const phase = (from_mod_q_ + c.first_line % q) % q;
      return static_cast<std::size_t>(
          arch_->morse_rules(begin, *plan, s.digits, phase, c.lines, scratch + rules_offset_) - begin);
    }
  }
  if (kernel_ == nullptr) return static_cast<std::size_t>(scalar(begin, c.lines) - begin);
  std::uint64_t const mod30 = (plan_.from_mod30() + c.first_line % 30) % 30;
  return static_cast<std::size_t>(classic_walk(begin, s, mod30, c.lines, kMorseMaxPrefix, kernel_, scalar) - begin);
}

}  // namespace fizzgen
