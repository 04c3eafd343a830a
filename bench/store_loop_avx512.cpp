// The ceiling of any kernel that writes its output with 64-byte vector stores: one constant
// vector stored again and again through the buffer, 64-aligned or not. memset reaches further on
// CPUs whose fast string stores (rep stosb) skip reading the lines they overwrite, which no
// vector store does. The only file of the bench compiled with AVX-512 flags; run it only where
// the CPU has AVX-512F.

#include <immintrin.h>

#include <cstddef>
#include <cstdint>

namespace fizzgen::bench {

void store_loop_avx512(std::byte* buf, std::size_t bytes, std::size_t offset, std::uint8_t value) noexcept {
  __m512i const v = _mm512_set1_epi8(static_cast<char>(value));
  for (std::size_t i = offset; i + 64 <= bytes; i += 64) _mm512_storeu_si512(buf + i, v);
}

}  // namespace fizzgen::bench
