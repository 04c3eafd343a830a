// The custom-rules template kernel for sse4_2: the only file compiled with sse4_2's flags.
#include "generators/rule_template_impl.hpp"

namespace fizzgen {

char* rule_template_sse4_2(char* out, rule_template const& t, char const* number, std::size_t width,
                           std::uint64_t phase, std::uint64_t lines, std::byte* scratch) noexcept {
  if (rule_template::store_bytes(std::max(width, t.longest_word) + 1, 16) != 16) return nullptr;
  return rule_template_fill{}(xsimd::sse4_2{}, out, t, number, width, phase, lines, scratch);
}

}  // namespace fizzgen
