// The classic FizzBuzz kernel for avx2: the only file compiled with its flags. Lines that fit in 16
// bytes use 16-byte stores (fewer cache-line splits than 32-byte ones).
#include "generators/fizzbuzz_kernel_impl.hpp"

namespace fizzgen {

char* fizzbuzz_blocks_avx2(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept {
  if (prefix_len + 2 <= 16) return fizzbuzz_blocks{}(xsimd::sse4_2{}, out, prefix, prefix_len, blocks);
  return fizzbuzz_blocks{}(xsimd::avx2{}, out, prefix, prefix_len, blocks);
}

}  // namespace fizzgen
