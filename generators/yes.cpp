#include "generators/yes.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "generators/splitmix.hpp"

namespace fizzgen {

std::string yes_text(std::vector<std::string> const& words) {
  if (words.empty()) return "y";
  std::string text = words.front();
  for (std::size_t i = 1; i < words.size(); ++i) text.append(" ").append(words[i]);
  return text;
}

std::string cycled_line(std::string_view text, std::size_t length) {
  std::string line;
  line.reserve(length);
  while (line.size() + 1 < length) line.append(text.substr(0, length - 1 - line.size()));
  return line + '\n';
}

yes::yes(std::vector<std::string> const& words, std::optional<std::uint64_t> total_lines, std::size_t chunk_bytes)
    : yes(line_tag{}, yes_text(words) + '\n', total_lines, chunk_bytes) {}

yes::yes(line_tag, std::string line, std::optional<std::uint64_t> total_lines, std::size_t chunk_bytes)
    : line_(std::move(line)), plan_{std::max<std::size_t>(1, chunk_bytes / line_.size()), total_lines} {}

yes yes::of_line(std::string line, std::optional<std::uint64_t> total_lines, std::size_t chunk_bytes) {
  return yes(line_tag{}, std::move(line), total_lines, chunk_bytes);
}

std::size_t yes::fill_at(chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept {
  auto* p = reinterpret_cast<char*>(out.data() + at);
  std::size_t const len = line_.size();
  std::size_t const total = static_cast<std::size_t>(c.lines) * len;
  if (total == 0) return 0;
  // Write one line, then double the filled prefix until the chunk is full.
  std::memcpy(p, line_.data(), len);
  for (std::size_t done = len; done < total;) {
    std::size_t const n = std::min(done, total - done);
    std::memcpy(p + done, p, n);
    done += n;
  }
  return total;
}

yes_random_lengths::yes_random_lengths(std::string_view text, std::size_t shortest, std::size_t longest,
                                       std::uint64_t seed, std::optional<std::uint64_t> total_lines,
                                       std::size_t chunk_bytes)
    : text_(cycled_line(text, longest)), shortest_(shortest), longest_(longest), seed_(seed) {
  text_.pop_back();  // the newline: fill writes its own after each prefix
  plan_ = line_plan{std::max<std::size_t>(1, chunk_bytes / ((shortest + longest) / 2)), total_lines};
}

std::size_t yes_random_lengths::length(std::uint64_t k) const noexcept {
  std::uint64_t const choices = longest_ - shortest_ + 1;
  return shortest_ + static_cast<std::size_t>(splitmix::at(seed_, k) % choices);
}

std::size_t yes_random_lengths::fill_at(chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept {
  auto* const start = reinterpret_cast<char*>(out.data() + at);
  char* p = start;
  for (std::uint64_t k = c.first_line; k < c.first_line + c.lines; ++k) {
    std::size_t const n = length(k);
    std::memcpy(p, text_.data(), n - 1);
    p[n - 1] = '\n';
    p += n;
  }
  return static_cast<std::size_t>(p - start);
}

}  // namespace fizzgen
