#include "generators/yes.hpp"

#include <algorithm>
#include <cstring>

namespace fizzgen {

yes::yes(std::vector<std::string> const& words, std::optional<std::uint64_t> total_lines, std::size_t chunk_bytes) {
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) line_.push_back(' ');
    line_.append(words[i]);
  }
  if (words.empty()) line_.push_back('y');
  line_ += '\n';
  plan_ = line_plan{std::max<std::size_t>(1, chunk_bytes / line_.size()), total_lines};
}

std::size_t yes::fill(chunk const& c, std::span<std::byte> out) const noexcept {
  auto* p = reinterpret_cast<char*>(out.data());
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

}  // namespace fizzgen
