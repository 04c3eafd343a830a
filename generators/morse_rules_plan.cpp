#include "generators/morse_rules_plan.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>
#include <string>

#include "generators/morse_codec.hpp"
#include "generators/morse_table.hpp"
#include "generators/width_plan.hpp"

namespace fizzgen {
namespace {

/// What each phase of Q lines is: the Morse of its words and newline, or empty for a number line.
std::vector<std::string> word_lines(rule_set const& rules, std::uint64_t q) {
  std::vector<std::string> lines(q);
  for (std::uint64_t j = 0; j < q; ++j) {
    std::string words;
    for (auto const& r : rules)
      if (j % r.divisor == 0) words += r.word;
    if (words.empty()) continue;
    words += '\n';  // it takes back the last space, as in the plain stream encoded
    std::string morse(morse::encode_bound(words.size()), '\0');
    morse.resize(morse::encode_eager(words, morse.data()));
    lines[j] = std::move(morse);
  }
  return lines;
}

/// The relative cost of a store of v bytes, measured on an AMD EPYC (Zen 5) VM, one thread, CPU
/// seconds per byte against bytes per store over 3:Fizz 5:Buzz 7:Bazz and 2:Even 7:Seven at 9 and
/// 19 digits: a 64-byte store, which splits a cache line on most offsets, costs about twice a
/// 32-byte one, and a 16-byte one not much less than a 32-byte one.
double store_cost(std::size_t v) noexcept { return v == 16 ? 0.70 : v == 32 ? 0.85 : 1.5; }

constexpr std::uint32_t kPrefixByte = 1U << 31;  ///< a source byte that is a prefix image's (bits: its place)

morse_rules_plan plan_width(std::vector<std::string> const& words, std::uint64_t q, std::size_t width, std::size_t v) {
  morse_rules_plan plan;
  std::size_t const pbytes = 6 * (width - 1);
  std::size_t const nv = (pbytes + v - 1) / v;
  std::uint64_t q_bytes = 0;
  for (std::uint64_t j = 0; j < q; ++j) q_bytes += words[j].empty() ? 6 * width : words[j].size();
  if (q_bytes == 0 || q_bytes > morse_rules_template::kMaxBlockBytes) return {};
  std::uint64_t const blocks = std::max<std::uint64_t>(1, morse_rules_template::kMinBlockBytes / q_bytes);
  plan.block_lines = q * blocks;
  plan.groups = plan.block_lines / 10;
  if ((plan.groups * nv + 1) > UINT16_MAX) return {};

  // The block byte by byte: a constant, or kPrefixByte | the byte's place in its prefix image.
  std::vector<std::uint32_t> source;
  std::vector<std::string> const units = [] {
    std::vector<std::string> u;
    for (char d = '0'; d <= '9'; ++d) u.push_back(std::string(morse::code_of(static_cast<unsigned char>(d))) + '\n');
    return u;
  }();
  auto& stores = plan.stores;
  std::uint16_t const zero = static_cast<std::uint16_t>(plan.groups * nv);
  std::size_t cover = 0;  // the end of the last store
  for (std::uint64_t j = 0; j < plan.block_lines; ++j) {
    auto const start = static_cast<std::uint32_t>(source.size());
    plan.line_offset.push_back(start);
    std::string const& w = words[j % q];
    if (w.empty()) {
      for (std::size_t i = 0; i < pbytes; ++i) source.push_back(kPrefixByte | static_cast<std::uint32_t>(i));
      for (char const c : units[j % 10]) source.push_back(static_cast<unsigned char>(c));
      // The prefix's vectors start at the line, so that store k takes the group's vector k.
      auto const group = static_cast<std::uint16_t>(j / 10 * nv);
      for (std::size_t k = 0; k < nv; ++k)
        stores.push_back({static_cast<std::uint32_t>(start + k * v), static_cast<std::uint16_t>(group + k), 0});
      cover = start + nv * v;
    } else {
      for (char const c : w) source.push_back(static_cast<unsigned char>(c));
    }
    while (cover < source.size()) {
      auto const at = static_cast<std::uint32_t>(std::max<std::size_t>(cover, start));
      stores.push_back({at, zero, 0});
      cover = at + v;
    }
  }
  plan.block_bytes = source.size();
  plan.line_offset.push_back(static_cast<std::uint32_t>(plan.block_bytes));

  // Each store's image: its constant bytes up to the next store, zeros elsewhere.
  std::map<std::string, std::uint16_t> distinct;
  for (std::size_t i = 0; i < stores.size(); ++i) {
    std::size_t const from = stores[i].offset;
    std::size_t const to = std::min(i + 1 < stores.size() ? stores[i + 1].offset : plan.block_bytes, from + v);
    std::string image(v, '\0');
    for (std::size_t b = from; b < to; ++b)
      if ((source[b] & kPrefixByte) == 0) image[b - from] = static_cast<char>(source[b]);
    if (distinct.size() == UINT16_MAX) return {};
    auto const [it, added] = distinct.try_emplace(std::move(image), static_cast<std::uint16_t>(distinct.size()));
    stores[i].image = it->second;
  }
  plan.images.resize(distinct.size() * v);
  for (auto const& [image, index] : distinct) std::memcpy(&plan.images[std::size_t{index} * v], image.data(), v);

  plan.text.resize(plan.block_bytes);
  for (std::size_t b = 0; b < plan.block_bytes; ++b)
    plan.text[b] = (source[b] & kPrefixByte) != 0 ? '\0' : static_cast<char>(source[b]);
  // line_store and stored_line, from the last line back.
  plan.line_store.resize(plan.block_lines + 1);
  plan.stored_line.resize(plan.block_lines + 1);
  plan.line_store[plan.block_lines] = static_cast<std::uint32_t>(stores.size());
  plan.stored_line[plan.block_lines] = static_cast<std::uint32_t>(plan.block_lines);
  std::size_t s = stores.size();
  for (std::uint64_t j = plan.block_lines; j-- > 0;) {
    while (s > 0 && stores[s - 1].offset >= plan.line_offset[j]) --s;
    plan.line_store[j] = static_cast<std::uint32_t>(s);
    bool const stored = s < stores.size() && stores[s].offset == plan.line_offset[j];
    plan.stored_line[j] = stored ? static_cast<std::uint32_t>(j) : plan.stored_line[j + 1];
  }
  // low: the last one or two prefix digits' codes, for every value they take.
  std::size_t const low_digits = width >= 3 ? 2 : 1;
  std::size_t const span = low_digits == 2 ? 100 : 10;
  plan.low.assign(span * nv * v, 0);
  for (std::size_t t = 0; t < span; ++t) {
    std::size_t const digit[2] = {t / 10, t % 10};
    for (std::size_t i = 0; i < low_digits; ++i) {
      std::string const code = units[digit[2 - low_digits + i]].substr(0, 5) + ' ';
      std::copy(code.begin(), code.end(),
                plan.low.begin() + static_cast<std::ptrdiff_t>(t * nv * v + pbytes - 6 * (low_digits - i)));
    }
  }
  plan.width = width;
  plan.store_bytes = v;
  plan.prefix_vectors = nv;
  return plan;
}

}  // namespace

std::optional<morse_rules_template> morse_rules_template::build(rule_set const& rules, std::size_t first,
                                                                std::size_t last, std::size_t vector_bytes) {
  std::uint64_t const period = rule_period(rules, kMaxPeriod);
  if (period == 0 || vector_bytes < 16) return std::nullopt;
  morse_rules_template t;
  t.period_lines = std::lcm(period, std::uint64_t{10});
  std::vector<std::string> const words = word_lines(rules, t.period_lines);
  for (std::size_t width = std::max<std::size_t>(first, 2); width <= std::min(last, kMaxWidth); ++width) {
    // The store width that writes the block at the least cost.
    morse_rules_plan plan;
    double best = 0;
    for (std::size_t v = 16; v <= vector_bytes && v <= 64; v *= 2) {
      morse_rules_plan p = plan_width(words, t.period_lines, width, v);
      if (p.width == 0) continue;
      double const cost = store_cost(v) * static_cast<double>(p.stores.size()) / static_cast<double>(p.block_bytes);
      if (plan.width == 0 || cost < best) plan = std::move(p), best = cost;
    }
    if (plan.width == 0) continue;
    if (t.plans.size() <= width) t.plans.resize(width + 1);
    t.scratch_bytes = std::max(t.scratch_bytes, plan.scratch_bytes());
    t.plans[width] = std::move(plan);
  }
  if (t.plans.empty()) return std::nullopt;
  return t;
}

}  // namespace fizzgen
