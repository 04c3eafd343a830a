// The custom-rules template kernel for avx2: the only file compiled with its flags. The vector
// width is rule_template::store_bytes's choice, which the block plans were made for.
#include "generators/rule_template_impl.hpp"

namespace fizzgen {

char* rule_template_avx2(char* out, rule_template const& t, char const* number, std::size_t width, std::uint64_t phase,
                         std::uint64_t lines, std::byte* scratch) noexcept {
  if (rule_template::store_bytes(std::max(width, t.longest_word) + 1, 32) != 32) return nullptr;
  return rule_template_fill{}(xsimd::avx2{}, out, t, number, width, phase, lines, scratch);
}

}  // namespace fizzgen
