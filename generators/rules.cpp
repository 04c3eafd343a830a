#include "generators/rules.hpp"

namespace fizzgen {

rule_set classic_rules() { return {{3, "Fizz"}, {5, "Buzz"}}; }

}  // namespace fizzgen
