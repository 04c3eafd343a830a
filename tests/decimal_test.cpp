// decimal: parsing, addition across carries, mod, minus and ordering, against the string oracle.

#include "generators/decimal.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>

#include "oracle.hpp"

namespace {

using fizzgen::decimal;

constexpr char kTwo64Minus1[] = "18446744073709551615";
constexpr char kTwo64[] = "18446744073709551616";

decimal dec(std::string const& s) {
  auto d = decimal::parse(s);
  EXPECT_TRUE(d.has_value()) << s;
  return d.value_or(decimal{});
}

std::string random_digits(std::mt19937_64& rng, std::size_t max_len) {
  std::size_t const len = 1 + rng() % max_len;
  std::string s;
  s += static_cast<char>('1' + rng() % 9);
  while (s.size() < len) s += static_cast<char>('0' + rng() % 10);
  return s;
}

TEST(DecimalParse, AcceptsDigitsAndStripsLeadingZeros) {
  EXPECT_EQ(dec("0").digits(), "0");
  EXPECT_TRUE(dec("0").is_zero());
  EXPECT_EQ(dec("000").digits(), "0");
  EXPECT_TRUE(dec("000").is_zero());
  EXPECT_EQ(dec("007").digits(), "7");
  EXPECT_FALSE(dec("007").is_zero());
  EXPECT_EQ(dec("1").digits(), "1");
  EXPECT_EQ(dec("1000").digits(), "1000");
  EXPECT_EQ(dec("0001000").digits(), "1000");
  std::string const big = oracle::pow10(100);
  EXPECT_EQ(dec("000" + big).digits(), big);
  EXPECT_EQ(decimal{}.digits(), "0");
  EXPECT_TRUE(decimal{}.is_zero());
}

TEST(DecimalParse, RejectsEmptyAndNonDigits) {
  for (char const* bad :
       {"", " ", "-5", "+5", " 5", "5 ", "12abc", "1.0", "1e3", "0x10", "1_000", "١", "\n", "12\n", "9a9"})
    EXPECT_FALSE(decimal::parse(bad).has_value()) << '"' << bad << '"';
  EXPECT_FALSE(decimal::parse(std::string_view("12\0"
                                               "3",
                                               4))
                   .has_value());
}

TEST(DecimalPlus, SmallAndAcrossCarries) {
  EXPECT_EQ(dec("0").plus(0).digits(), "0");
  EXPECT_EQ(dec("0").plus(1).digits(), "1");
  EXPECT_EQ(dec("5").plus(0).digits(), "5");
  EXPECT_EQ(dec("9").plus(1).digits(), "10");
  EXPECT_EQ(dec("99").plus(1).digits(), "100");
  EXPECT_EQ(dec("999").plus(2).digits(), "1001");
  EXPECT_EQ(dec("995").plus(5).digits(), "1000");
  EXPECT_EQ(dec("1").plus(999).digits(), "1000");
  EXPECT_EQ(dec("19").plus(81).digits(), "100");
  EXPECT_EQ(dec(std::string(30, '9')).plus(1).digits(), oracle::pow10(30));
  EXPECT_EQ(dec("0").plus(UINT64_MAX).digits(), kTwo64Minus1);
  EXPECT_EQ(dec("1").plus(UINT64_MAX).digits(), kTwo64);
  EXPECT_EQ(dec(kTwo64Minus1).plus(1).digits(), kTwo64);
  EXPECT_EQ(dec(kTwo64Minus1).plus(UINT64_MAX).digits(), "36893488147419103230");
  EXPECT_EQ(dec("99999999999999999999").plus(UINT64_MAX).digits(), "118446744073709551614");
  EXPECT_EQ(dec("9").plus(UINT64_MAX).digits(), "18446744073709551624");
}

TEST(DecimalPlus, DoesNotModifyItself) {
  decimal const a = dec("999");
  decimal const b = a.plus(1);
  EXPECT_EQ(a.digits(), "999");
  EXPECT_EQ(b.digits(), "1000");
}

TEST(DecimalPlus, MatchesOracleOnSeededRandomInputs) {
  std::mt19937_64 rng(20240601);
  for (int i = 0; i < 5000; ++i) {
    std::string const a = random_digits(rng, 45);
    std::uint64_t n = rng();
    switch (i % 4) {  // vary the size of n, including all-nines patterns that carry far
      case 0:
        n %= 1000;
        break;
      case 1:
        n >>= rng() % 64;
        break;
      case 2:
        n = UINT64_MAX - n % 100;
        break;
      default:
        break;
    }
    ASSERT_EQ(dec(a).plus(n).digits(), oracle::add(a, std::to_string(n))) << a << " + " << n;
  }
}

TEST(DecimalPlus, RepeatedIncrementMatchesOracle) {
  std::string s = "99990";
  decimal d = dec(s);
  for (int i = 0; i < 2000; ++i) {
    d = d.plus(1);
    s = oracle::increment(s);
    ASSERT_EQ(d.digits(), s);
  }
}

TEST(DecimalMod, KnownValues) {
  EXPECT_EQ(dec("0").mod(7), 0u);
  EXPECT_EQ(dec("12345").mod(1), 0u);
  EXPECT_EQ(dec("12345").mod(10), 5u);
  EXPECT_EQ(dec("15").mod(3), 0u);
  EXPECT_EQ(dec("16").mod(3), 1u);
  EXPECT_EQ(dec(kTwo64Minus1).mod(UINT64_MAX), 0u);
  EXPECT_EQ(dec(kTwo64).mod(UINT64_MAX), 1u);
  EXPECT_EQ(dec(kTwo64Minus1).mod(UINT64_MAX - 1), 1u);
  EXPECT_EQ(dec(kTwo64).mod(std::uint64_t{1} << 32), 0u);
  EXPECT_EQ(dec("1000000007").mod(1000000007), 0u);
  EXPECT_EQ(dec("1000000008").mod(1000000007), 1u);
  // 10^30 mod (10^9 + 7): 10^9 = -7, so 10^30 = 10^3 * (-7)^3 = -343000 = 999657007.
  EXPECT_EQ(dec(oracle::pow10(30)).mod(1000000007), 999657007u);
}

TEST(DecimalMod, MatchesOracleOnSeededRandomInputs) {
  std::mt19937_64 rng(77);
  for (int i = 0; i < 5000; ++i) {
    std::string const a = random_digits(rng, 50);
    std::uint64_t d = rng();
    switch (i % 4) {
      case 0:
        d = 1 + d % 100;
        break;
      case 1:
        d = 1 + (d >> (rng() % 64));
        break;
      case 2:
        d = UINT64_MAX - d % 10;
        break;
      default:
        d = d == 0 ? 1 : d;
        break;
    }
    ASSERT_EQ(dec(a).mod(d), oracle::mod(a, d)) << a << " mod " << d;
  }
}

TEST(DecimalMinus, FitsInSixtyFourBits) {
  EXPECT_EQ(dec("0").minus(dec("0")), 0u);
  EXPECT_EQ(dec("5").minus(dec("5")), 0u);
  EXPECT_EQ(dec("10").minus(dec("1")), 9u);
  EXPECT_EQ(dec("1000").minus(dec("1")), 999u);
  EXPECT_EQ(dec("1000").minus(dec("999")), 1u);
  EXPECT_EQ(dec(kTwo64Minus1).minus(dec("0")), UINT64_MAX);
  EXPECT_EQ(dec(kTwo64).minus(dec("1")), UINT64_MAX);
  EXPECT_EQ(dec(kTwo64).minus(dec(kTwo64Minus1)), 1u);
  std::string const big = oracle::pow10(40);
  EXPECT_EQ(dec(oracle::add(big, "5")).minus(dec(big)), 5u);
  EXPECT_EQ(dec(oracle::add(big, kTwo64Minus1)).minus(dec(big)), UINT64_MAX);
  EXPECT_EQ(dec(big).minus(dec(oracle::pow10_minus(40, 1))), 1u);
}

TEST(DecimalMinus, DoesNotFit) {
  EXPECT_EQ(dec(kTwo64).minus(dec("0")), std::nullopt);
  EXPECT_EQ(dec("36893488147419103230").minus(dec("1")), std::nullopt);
  std::string const big = oracle::pow10(40);
  EXPECT_EQ(dec(oracle::add(big, kTwo64)).minus(dec(big)), std::nullopt);
  EXPECT_EQ(dec(big).minus(dec("0")), std::nullopt);
}

TEST(DecimalMinus, NegativeIsNullopt) {
  EXPECT_EQ(dec("0").minus(dec("1")), std::nullopt);
  EXPECT_EQ(dec("9").minus(dec("10")), std::nullopt);
  EXPECT_EQ(dec("999").minus(dec("1000")), std::nullopt);
  EXPECT_EQ(dec(kTwo64Minus1).minus(dec(kTwo64)), std::nullopt);
}

TEST(DecimalMinus, RoundTripsWithPlus) {
  std::mt19937_64 rng(4242);
  for (int i = 0; i < 2000; ++i) {
    decimal const a = dec(random_digits(rng, 40));
    std::uint64_t const n = i % 2 ? rng() : rng() % 100000;
    ASSERT_EQ(a.plus(n).minus(a), n) << a.digits() << " + " << n;
    if (n != 0) {
      ASSERT_EQ(a.minus(a.plus(n)), std::nullopt);
    }
  }
}

TEST(DecimalOrdering, ByValueNotByText) {
  EXPECT_LT(dec("0"), dec("1"));
  EXPECT_LT(dec("9"), dec("10"));
  EXPECT_LT(dec("99"), dec("100"));
  EXPECT_LT(dec("123"), dec("124"));
  EXPECT_LT(dec("124"), dec("1000"));
  EXPECT_GT(dec("1000"), dec("999"));
  EXPECT_LT(dec(kTwo64Minus1), dec(kTwo64));
  EXPECT_EQ(dec("007"), dec("7"));
  EXPECT_EQ(dec("000"), dec("0"));
  EXPECT_EQ(dec("007") <=> dec("7"), std::strong_ordering::equal);
  EXPECT_NE(dec("7"), dec("70"));
  EXPECT_LE(dec("5"), dec("5"));
  EXPECT_GE(dec("5"), dec("5"));
}

TEST(DecimalOrdering, MatchesPlusOnSeededRandomInputs) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 2000; ++i) {
    decimal const a = dec(random_digits(rng, 30));
    std::uint64_t const n = 1 + rng() % 1000;
    ASSERT_LT(a, a.plus(n));
    ASSERT_GT(a.plus(n), a);
    ASSERT_EQ(a.plus(0), a);
  }
}

}  // namespace
