// The Morse FizzBuzz kernel for sse4_2: the only file compiled with its flags; 16-byte copies.
#include "generators/morse_fizzbuzz_kernel_impl.hpp"

namespace fizzgen {

char* morse_fizzbuzz_blocks_sse4_2(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept {
  return morse_blocks_for<16>(out, prefix, prefix_len, blocks);
}

}  // namespace fizzgen
