// The custom-rules template kernel for avx512bw: the only file compiled with its flags. The vector
// width is rule_template::store_bytes's choice (32 bytes where the lines fit), which the block
// plans were made for.
#include "generators/rule_template_impl.hpp"

namespace fizzgen {

char* rule_template_avx512bw(char* out, rule_template const& t, char const* number, std::size_t width,
                             std::uint64_t phase, std::uint64_t lines, std::byte* scratch) noexcept {
  switch (rule_template::store_bytes(std::max(width, t.longest_word) + 1, 64)) {
    case 32:
      return rule_template_fill{}(xsimd::avx2{}, out, t, number, width, phase, lines, scratch);
    case 64:
      return rule_template_fill{}(xsimd::avx512bw{}, out, t, number, width, phase, lines, scratch);
    default:
      return nullptr;
  }
}

}  // namespace fizzgen
