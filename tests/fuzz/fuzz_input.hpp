#pragma once
// Reads a fuzzer's bytes front to back as small fields, so that seed files can be written by hand
// (printf with \x escapes) and a crash input can be read back as values. Past the end every field
// is zero or empty: any byte string is a valid input.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace fuzz {

class input {
 public:
  input(std::uint8_t const* data, std::size_t size) : rest_(reinterpret_cast<char const*>(data), size) {}

  std::uint8_t byte() noexcept { return take1(); }

  /// `n` bytes little-endian (n <= 8).
  std::uint64_t le(std::size_t n) noexcept {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{take1()} << (8 * i);
    return v;
  }

  /// The bytes up to the next '\n' (which is consumed), or all that is left.
  std::string_view line() noexcept {
    auto const nl = rest_.find('\n');
    std::string_view const out = rest_.substr(0, nl);
    rest_.remove_prefix(nl == std::string_view::npos ? rest_.size() : nl + 1);
    return out;
  }

  /// Everything that is left.
  std::string_view rest() noexcept {
    std::string_view const out = rest_;
    rest_ = {};
    return out;
  }

 private:
  std::uint8_t take1() noexcept {
    if (rest_.empty()) return 0;
    auto const b = static_cast<std::uint8_t>(rest_.front());
    rest_.remove_prefix(1);
    return b;
  }
  std::string_view rest_;
};

/// The ASCII digits of `text` (others dropped), leading zeros removed, at most `max` digits;
/// "1" when nothing positive is left: a valid FizzBuzz start.
inline std::string positive_digits(std::string_view text, std::size_t max) {
  std::string out;
  for (char c : text)
    if (c >= '0' && c <= '9' && out.size() < max && !(out.empty() && c == '0')) out += c;
  return out.empty() ? "1" : out;
}

/// A rule word from fuzzed bytes: '\n' is not allowed in a word, so it becomes '_'; "W" if empty.
inline std::string word(std::string_view text, std::size_t max) {
  std::string out(text.substr(0, max));
  for (char& c : out)
    if (c == '\n') c = '_';
  return out.empty() ? "W" : out;
}

/// Deterministic piece sizes for splitting a stream: 1 to 2^k bytes, k itself varying.
class splitter {
 public:
  explicit splitter(std::uint64_t seed) noexcept : state_(seed | 1) {}
  std::size_t next() noexcept {
    state_ ^= state_ << 13;  // xorshift64
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return 1 + static_cast<std::size_t>((state_ >> 8) % (std::uint64_t{1} << (state_ % 13)));
  }

 private:
  std::uint64_t state_;
};

}  // namespace fuzz
