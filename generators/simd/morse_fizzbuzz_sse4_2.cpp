// The Morse FizzBuzz kernel for sse4_2: the only file compiled with its flags; 16-byte copies.
#include "generators/morse_fizzbuzz_kernel_impl.hpp"
#include "generators/morse_rules_kernel_impl.hpp"

namespace fizzgen {

char* morse_fizzbuzz_blocks_sse4_2(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept {
  return morse_blocks_for<16>(out, prefix, prefix_len, blocks);
}

char* morse_fizzbuzz_rules_sse4_2(char* out, morse_rules_plan const& plan, char const* number, std::uint64_t phase,
                                  std::uint64_t lines, std::byte* scratch) noexcept {
  return morse_rules_for<16>(out, plan, number, phase, lines, scratch);
}

}  // namespace fizzgen
