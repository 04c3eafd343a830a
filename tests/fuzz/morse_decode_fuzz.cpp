// libFuzzer target: the fast Morse decoder on any bytes must match the oracle (no crash, no hang,
// no read or write out of bounds under ASan), and so must the encoder and the decoder's chunk
// independence. Build with -DFIZZGEN_BUILD_FUZZERS=ON and clang; run:
//   build/tests/morse_decode_fuzz -max_len=4096 -max_total_time=60

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "generators/morse_codec.hpp"
#include "morse_oracle.hpp"

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  namespace morse = fizzgen::morse;
  std::string_view const in(reinterpret_cast<char const*>(data), size);
  // Decode into an exactly sized buffer, so ASan sees any store past decode_bound.
  std::string out(morse::decode_bound(size), '\0');
  out.resize(morse::decode(in, out.data()));
  if (out != morse_oracle::decode(in)) std::abort();
  // Cut after the first separator past the middle: the two halves decode to the whole.
  std::size_t cut = size / 2;
  while (cut < size && !morse::is_separator(in[cut])) ++cut;
  if (cut < size && morse::decode(in.substr(0, cut + 1)) + morse::decode(in.substr(cut + 1)) != out) std::abort();
  if (morse::encode(in) != morse_oracle::encode(in)) std::abort();
  return 0;
}
