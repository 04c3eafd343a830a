#include "generators/decimal.hpp"

#include <algorithm>

namespace fizzgen {

std::optional<decimal> decimal::parse(std::string_view text) {
  if (text.empty() || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  auto first = text.find_first_not_of('0');
  if (first == std::string_view::npos) return decimal{};
  return decimal{std::string(text.substr(first))};
}

decimal decimal::plus(std::uint64_t n) const {
  std::string out = digits_;
  // Schoolbook addition from the right; n shrinks by a factor of ten per digit.
  std::uint64_t carry = n;
  for (auto i = out.size(); i-- > 0 && carry != 0;) {
    std::uint64_t sum = static_cast<std::uint64_t>(out[i] - '0') + carry % 10;
    carry /= 10;
    if (sum >= 10) {
      sum -= 10;
      ++carry;
    }
    out[i] = static_cast<char>('0' + sum);
  }
  if (carry != 0) out = std::to_string(carry) + out;
  return decimal{std::move(out)};
}

std::uint64_t decimal::mod(std::uint64_t d) const noexcept {
  uint128 r = 0;
  for (char c : digits_) r = (r * 10 + static_cast<unsigned>(c - '0')) % d;
  return static_cast<std::uint64_t>(r);
}

std::optional<std::uint64_t> decimal::minus(decimal const& other) const {
  if (*this < other) return std::nullopt;
  // Digit-wise subtraction with borrow, then the difference must fit in 64 bits.
  std::string a = digits_;
  std::string const b = std::string(a.size() - other.digits_.size(), '0') + other.digits_;
  int borrow = 0;
  for (auto i = a.size(); i-- > 0;) {
    int d = (a[i] - '0') - (b[i] - '0') - borrow;
    borrow = d < 0 ? 1 : 0;
    a[i] = static_cast<char>('0' + (d + 10) % 10);
  }
  decimal const difference = *parse(a);
  std::string_view diff = difference.digits();
  if (diff.size() > 20) return std::nullopt;
  uint128 value = 0;
  for (char c : diff) value = value * 10 + static_cast<unsigned>(c - '0');
  if (value > UINT64_MAX) return std::nullopt;
  return static_cast<std::uint64_t>(value);
}

std::strong_ordering operator<=>(decimal const& a, decimal const& b) noexcept {
  if (auto c = a.digits_.size() <=> b.digits_.size(); c != 0) return c;
  return a.digits_.compare(b.digits_) <=> 0;
}

}  // namespace fizzgen
