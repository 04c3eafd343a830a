#include "generators/rule_template.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <numeric>

namespace fizzgen {
namespace {

/// The block of t at this width with w-byte stores: one at each number line (the prefix sits at
/// vector byte 0), plus one wherever words leave bytes no store reached. A store's image holds
/// only the bytes up to the next store, zeros after: the next store rewrites them (the zeros in a
/// later prefix too), so images repeat and the few distinct ones stay in L1, where one image per
/// store streamed from L2 (16:Sixteen 125:Hundred: 15 GB/s against 35 for the classic kernel).
block_plan plan_block(rule_template const& t, std::size_t width, std::size_t w) {
  block_plan plan;
  auto const groups = static_cast<std::uint16_t>(t.block_lines / 10);
  std::vector<std::uint8_t> bytes;  // the block with zeros for every prefix
  auto& stores = plan.stores;
  for (std::uint64_t j = 0; j < t.block_lines; ++j) {
    auto const start = static_cast<std::uint32_t>(bytes.size());
    std::uint8_t const k = t.line_image[j];
    if (k < 10) {
      bytes.insert(bytes.end(), width - 1, 0);
      bytes.push_back(static_cast<std::uint8_t>('0' + k));
      stores.push_back({start, static_cast<std::uint16_t>(j / 10), 0});
    } else {
      bytes.insert(bytes.end(), t.words[k - 10].begin(), t.words[k - 10].end());
    }
    bytes.push_back('\n');
    std::size_t cover = stores.empty() ? 0 : stores.back().offset + w;
    while (cover < bytes.size()) {
      auto const at = static_cast<std::uint32_t>(std::max<std::size_t>(cover, start));
      stores.push_back({at, groups, 0});
      cover = at + w;
    }
  }
  plan.block_bytes = bytes.size();
  std::map<std::string, std::uint16_t> distinct;  // image bytes -> index
  for (std::size_t i = 0; i < stores.size(); ++i) {
    std::size_t const from = stores[i].offset;
    std::size_t const to = std::min(i + 1 < stores.size() ? stores[i + 1].offset : plan.block_bytes, from + w);
    std::string image(w, '\0');
    std::copy(bytes.begin() + static_cast<std::ptrdiff_t>(from), bytes.begin() + static_cast<std::ptrdiff_t>(to),
              image.begin());
    if (distinct.size() > UINT16_MAX) return {};
    auto const [it, added] = distinct.try_emplace(std::move(image), static_cast<std::uint16_t>(distinct.size()));
    stores[i].image = it->second;
  }
  plan.images.resize(distinct.size() * w);
  for (auto const& [image, index] : distinct) std::memcpy(&plan.images[index * w], image.data(), w);
  plan.store_bytes = w;
  return plan;
}

}  // namespace

std::optional<rule_template> rule_template::build(rule_set const& rules, std::uint64_t period) {
  if (period == 0 || period > kMaxPeriod) return std::nullopt;
  rule_template t;
  t.block_lines = std::lcm(period, std::uint64_t{10});
  t.line_image.resize(t.block_lines);
  std::map<std::string, std::uint8_t> index;  // word line -> image
  for (std::uint64_t j = 0; j < t.block_lines; ++j) {
    std::string line;
    for (auto const& r : rules)
      if (j % r.divisor == 0) line += r.word;
    if (line.empty()) {
      t.line_image[j] = static_cast<std::uint8_t>(j % 10);
      continue;
    }
    auto [it, added] = index.try_emplace(line, static_cast<std::uint8_t>(10 + t.words.size()));
    if (added) {
      if (t.words.size() == kMaxWords) return std::nullopt;
      t.longest_word = std::max(t.longest_word, line.size());
      t.words.push_back(std::move(line));
    }
    t.line_image[j] = it->second;
  }
  return t;
}

std::size_t rule_template::store_bytes(std::size_t line, std::size_t vector_bytes) noexcept {
  if (line > vector_bytes) return 0;
  if (vector_bytes == 16) return 16;
  return line <= 32 ? 32 : 64;
}

void rule_template::plan_widths(std::size_t first, std::size_t last, std::size_t vector_bytes) {
  if (block_lines > kMaxPlannedBlock) return;
  for (std::size_t width = std::max<std::size_t>(first, 2); width <= last; ++width) {
    std::size_t const w = store_bytes(std::max(width, longest_word) + 1, vector_bytes);
    if (w == 0) break;  // wider numbers do not fit either
    if (plans.size() <= width) plans.resize(width + 1);
    plans[width] = plan_block(*this, width, w);
    // rule_template_fill's scratch: the images, a prefix per group of ten (and one more), the
    // hundred two-digit vectors, each part 64-aligned.
    std::size_t const groups = block_lines / 10;
    scratch_bytes = std::max(scratch_bytes, plans[width].images.size() + 64 + (groups + 1 + 100) * w + 64);
  }
}

}  // namespace fizzgen
