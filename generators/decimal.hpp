#pragma once
// Unsigned decimal integers of any length, kept as ASCII digits (most significant first), so a
// line number past 2^64 or 10^30 prints exactly without a binary-to-decimal conversion.

#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fizzgen {

/// 128-bit arithmetic for residues and differences (a GCC/Clang extension, hence the marker).
__extension__ using uint128 = unsigned __int128;

class decimal {
 public:
  decimal() : digits_("0") {}

  /// Parses a non-empty string of ASCII digits (leading zeros allowed); nullopt otherwise.
  static std::optional<decimal> parse(std::string_view text);

  /// The digits without leading zeros ("0" for zero).
  std::string_view digits() const noexcept { return digits_; }
  bool is_zero() const noexcept { return digits_ == "0"; }

  /// this + n.
  decimal plus(std::uint64_t n) const;
  /// this mod d, d > 0.
  std::uint64_t mod(std::uint64_t d) const noexcept;
  /// this - other when other <= this and the difference fits in 64 bits; nullopt otherwise.
  std::optional<std::uint64_t> minus(decimal const& other) const;

  friend std::strong_ordering operator<=>(decimal const& a, decimal const& b) noexcept;
  friend bool operator==(decimal const& a, decimal const& b) noexcept = default;

 private:
  explicit decimal(std::string digits) : digits_(std::move(digits)) {}
  std::string digits_;
};

}  // namespace fizzgen
