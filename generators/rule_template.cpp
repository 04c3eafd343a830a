#include "generators/rule_template.hpp"

#include <algorithm>
#include <array>
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

/// The block of t at this width as permutations of lane-byte lanes, stored `vector` bytes at a
/// time (so the lanes come in whole vectors); no plan (lane_bytes 0) when a lane's prefix bytes
/// span more than a lane's window, or 64-byte lanes need more than 64 distinct constant bytes.
permute_plan plan_permute(rule_template const& t, std::size_t width, std::size_t lane, std::size_t vector) {
  constexpr std::uint32_t kConstant = 1U << 31;  // a source that is this constant byte, not a prefix byte
  std::size_t const len = width - 1;
  // The table's runs are spread from a prefix's digits but the last two, read as one lane.
  if (len > lane + 2) return {};
  permute_plan plan;
  // Short blocks are planned several at a time, so that the kernel's loop over vectors runs long.
  std::uint64_t bytes = 0;
  for (std::uint64_t j = 0; j < t.block_lines; ++j)
    bytes += (t.line_image[j] < 10 ? width : t.words[t.line_image[j] - 10].size()) + 1;
  if (bytes > rule_template::kMaxPermuteBlock) return plan;
  plan.block_lines = t.block_lines * std::max<std::uint64_t>(1, rule_template::kPermuteBlock / bytes);
  std::vector<std::uint32_t> source;  // by block byte: its packed prefix byte, or kConstant | the byte
  plan.line_offset.reserve(plan.block_lines + 1);
  for (std::uint64_t j = 0; j < plan.block_lines; ++j) {
    plan.line_offset.push_back(static_cast<std::uint32_t>(source.size()));
    std::uint8_t const k = t.line_image[j % t.block_lines];
    if (k < 10) {
      for (std::size_t i = 0; i < len; ++i) source.push_back(static_cast<std::uint32_t>(j / 10 * len + i));
      source.push_back(kConstant | ('0' + k));
    } else {
      for (char const c : t.words[k - 10]) source.push_back(kConstant | static_cast<std::uint8_t>(c));
    }
    source.push_back(kConstant | '\n');
  }
  plan.line_offset.push_back(static_cast<std::uint32_t>(source.size()));
  plan.block_bytes = source.size();
  std::size_t const lanes = (plan.block_bytes + vector - 1) / vector * (vector / lane);
  std::array<int, 256> constant_at{};  // 1 + the byte's place in plan.constants, 0: not there yet
  std::size_t n_constants = 0;
  plan.window.resize(lanes);
  plan.index.resize((lanes * lane + 63) / 64);
  if (lane < 64) plan.image.resize(plan.index.size());
  std::uint8_t* const index = lane_data(plan.index);
  for (std::size_t i = 0; i < lanes; ++i) {
    std::size_t const from = std::min(i * lane, plan.block_bytes);
    std::size_t const to = std::min(from + lane, plan.block_bytes);
    std::uint32_t lo = UINT32_MAX, hi = 0;
    for (std::size_t b = from; b < to; ++b)
      if ((source[b] & kConstant) == 0) lo = std::min(lo, source[b]), hi = std::max(hi, source[b]);
    bool const constant = lo == UINT32_MAX;  // no prefix byte: any window serves
    if (constant) lo = hi = 0;
    if (hi - lo >= lane) return {};
    // The lane before's window where it holds every prefix byte this lane needs: a kernel then
    // permutes the same source again without loading it.
    if (i > 0 && (constant || (plan.window[i - 1] <= lo && hi < plan.window[i - 1] + lane))) lo = plan.window[i - 1];
    plan.window[i] = lo;
    for (std::size_t b = 0; b < lane; ++b) {
      std::size_t const at = i * lane + b;
      std::uint32_t const s = from + b < to ? source[from + b] : kConstant | '\n';  // past the block: anything
      if ((s & kConstant) == 0) {
        index[at] = static_cast<std::uint8_t>(s - lo);
        continue;
      }
      auto const c = static_cast<std::uint8_t>(s);
      if (lane < 64) {
        index[at] = 0x80;
        lane_data(plan.image)[at] = c;
        continue;
      }
      if (constant_at[c] == 0) {
        if (n_constants == 64) return {};
        plan.constants.bytes[n_constants] = c;
        constant_at[c] = static_cast<int>(++n_constants);
      }
      index[at] = static_cast<std::uint8_t>(64 + constant_at[c] - 1);
    }
  }
  // The table's runs: prefix digit i of prefix e at byte e * len + i; the last one or two digits
  // are e's, the others spread from the run's high digits.
  std::size_t const tail = std::min<std::size_t>(len, 2), span = tail == 2 ? 100 : 10;
  std::size_t const spread_vectors = (span * len + vector - 1) / vector;
  plan.spread_index.resize((spread_vectors * vector + 63) / 64);
  plan.spread_low.resize(plan.spread_index.size());
  for (std::size_t b = 0; b < spread_vectors * vector; ++b) {
    std::size_t const e = b / len, i = b % len;
    bool const high = e < span && i < len - tail;
    lane_data(plan.spread_index)[b] = high ? static_cast<std::uint8_t>(i) : lane < 64 ? 0x80 : 63;
    std::uint8_t digit = 0;
    if (e < span && i == len - 1) digit = static_cast<std::uint8_t>('0' + e % 10);
    if (e < span && tail == 2 && i == len - 2) digit = static_cast<std::uint8_t>('0' + e / 10);
    lane_data(plan.spread_low)[b] = digit;
  }
  plan.lane_bytes = lane;
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

void rule_template::plan_widths(std::size_t first, std::size_t last, std::size_t vector_bytes, std::size_t lane_bytes) {
  if (block_lines > kMaxPlannedBlock) return;
  std::size_t const groups = block_lines / 10;
  for (std::size_t width = std::max<std::size_t>(first, 2); lane_bytes != 0 && width <= last; ++width) {
    if (width > kMaxPermuteWidth) break;
    if (permutes.size() <= width) permutes.resize(width + 1);
    permutes[width] = plan_permute(*this, width, lane_bytes, vector_bytes);
    // The permuting kernel's scratch: its table of prefixes, with a store's and a window's reach
    // past it.
    if (permutes[width].lane_bytes != 0)
      scratch_bytes = std::max(
          scratch_bytes,
          permute_runs(permutes[width].block_lines / 10, width - 1) * (width >= 3 ? 100 : 10) * (width - 1) + 192);
  }
  for (std::size_t width = std::max<std::size_t>(first, 2); width <= last; ++width) {
    std::size_t const w = store_bytes(std::max(width, longest_word) + 1, vector_bytes);
    if (w == 0) break;  // wider numbers do not fit either
    if (plans.size() <= width) plans.resize(width + 1);
    plans[width] = plan_block(*this, width, w);
    // rule_template_fill's scratch: the images, a prefix per group of ten (and one more), the
    // hundred two-digit vectors, each part 64-aligned.
    scratch_bytes = std::max(scratch_bytes, plans[width].images.size() + 64 + (groups + 1 + 100) * w + 64);
  }
}

}  // namespace fizzgen
