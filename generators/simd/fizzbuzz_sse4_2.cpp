// The classic FizzBuzz kernel for sse4_2: the only file compiled with sse4_2's flags.
#include "generators/fizzbuzz_kernel_impl.hpp"

namespace fizzgen {

char* fizzbuzz_blocks_sse4_2(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept {
  return fizzbuzz_blocks{}(xsimd::sse4_2{}, out, prefix, prefix_len, blocks);
}

}  // namespace fizzgen
