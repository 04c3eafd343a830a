// The classic FizzBuzz kernel for avx512bw: the only file compiled with its flags. Stores are as
// narrow as the line allows: a 16-byte store that splits a cache line costs less than a 64-byte one.
#include "generators/fizzbuzz_kernel_impl.hpp"

namespace fizzgen {

char* fizzbuzz_blocks_avx512bw(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept {
  if (prefix_len + 2 <= 16) return fizzbuzz_blocks{}(xsimd::sse4_2{}, out, prefix, prefix_len, blocks);
  if (prefix_len + 2 <= 32) return fizzbuzz_blocks{}(xsimd::avx2{}, out, prefix, prefix_len, blocks);
  return fizzbuzz_blocks{}(xsimd::avx512bw{}, out, prefix, prefix_len, blocks);
}

}  // namespace fizzgen
