// The Morse FizzBuzz kernel for avx2: the only file compiled with its flags. A prefix image that
// fits in 16 bytes is copied with 16-byte moves: fewer cache-line splits than 32-byte ones.
#include "generators/morse_fizzbuzz_kernel_impl.hpp"
#include "generators/morse_rules_kernel_impl.hpp"

namespace fizzgen {

char* morse_fizzbuzz_blocks_avx2(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept {
  if (6 * prefix_len <= 16) return morse_blocks_for<16>(out, prefix, prefix_len, blocks);
  return morse_blocks_for<32>(out, prefix, prefix_len, blocks);
}

char* morse_fizzbuzz_rules_avx2(char* out, morse_rules_plan const& plan, char const* number, std::uint64_t phase,
                                std::uint64_t lines, std::byte* scratch) noexcept {
  return morse_rules_for<32>(out, plan, number, phase, lines, scratch);
}

}  // namespace fizzgen
