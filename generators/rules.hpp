#pragma once
// FizzBuzz rules: a line whose number is divisible by a rule's divisor prints the rule's word; the
// words of every matching rule are concatenated in order; a line no rule matches prints its number.

#include <cstdint>
#include <string>
#include <vector>

namespace fizzgen {

struct rule {
  std::uint64_t divisor = 1;  ///< > 0
  std::string word;           ///< non-empty, no newline
  friend bool operator==(rule const&, rule const&) = default;
};

using rule_set = std::vector<rule>;

/// 3:Fizz, 5:Buzz.
rule_set classic_rules();

}  // namespace fizzgen
