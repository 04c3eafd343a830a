// libFuzzer target: generators/decimal.hpp against the string oracle of tests/oracle.hpp. parse
// accepts exactly the digit strings; plus and mod agree with schoolbook addition and long
// division; ordering agrees with (length, text); minus(b) = v exactly when b + v = a, and nullopt
// exactly when a < b or a - b does not fit in 64 bits (b + (2^64 - 1) < a).
// Input: A '\n' B '\n' n (8 bytes little-endian) d (8 bytes little-endian).

#include <compare>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "generators/decimal.hpp"
#include "oracle.hpp"

namespace {

using fizzgen::decimal;

void require(bool ok) {
  if (!ok) std::abort();
}

/// Parses as decimal::parse promises, the obvious way; "" when text is not a number.
std::string reference_digits(std::string_view text) {
  if (text.empty()) return "";
  for (char c : text)
    if (c < '0' || c > '9') return "";
  auto const first = text.find_first_not_of('0');
  return first == std::string_view::npos ? "0" : std::string(text.substr(first));
}

decimal checked_parse(std::string_view text) {
  std::string const want = reference_digits(text);
  auto const got = decimal::parse(text);
  require(got.has_value() == !want.empty());
  if (!got) return decimal{};
  require(got->digits() == want);
  require(got->is_zero() == (want == "0"));
  return *got;
}

std::strong_ordering reference_order(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return a.size() <=> b.size();
  return a.compare(b) <=> 0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  fuzz::input in(data, size);
  decimal const a = checked_parse(in.line());
  decimal const b = checked_parse(in.line());
  std::uint64_t const n = in.le(8);
  std::uint64_t const d = in.le(8);
  std::string const as(a.digits()), bs(b.digits());

  require(a.plus(n).digits() == oracle::add(as, std::to_string(n)));
  if (d != 0) require(a.mod(d) == oracle::mod(as, d));
  require((a <=> b) == reference_order(as, bs));
  require((a == b) == (as == bs));

  if (auto const v = a.minus(b)) {
    require(b.plus(*v) == a);
  } else {
    require(a < b || b.plus(UINT64_MAX) < a);
  }
  return 0;
}
