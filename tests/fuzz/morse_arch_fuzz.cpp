// libFuzzer target, differential: every Morse encoder kernel this CPU runs (generators/arch.hpp)
// must write the scalar encoder's bytes for the same input, whole and cut into chunks, and the
// chunks stitched by encode_joiner must give the oracle's stream. Every decoder kernel must write
// the oracle's text for the input taken as Morse and for its encoding, whole and cut after a
// separator near every multiple of the chunk size. The avx512vbmi2 encoder is run both ways it
// makes its masks (it picks one by CPU vendor). Output buffers are exactly encode_bound() or
// decode_bound() bytes, so ASan sees any store past the room the kernel promised.
// Input: one byte, the chunk size (1 + b bytes), then the text.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "generators/arch.hpp"
#include "generators/morse_codec.hpp"
#include "generators/morse_encode_kernel.hpp"
#include "morse_oracle.hpp"

namespace {

/// What `arch` writes for in, eagerly, in a buffer of exactly encode_bound bytes.
std::string eager(std::string_view in, fizzgen::kernel_arch const* arch) {
  namespace morse = fizzgen::morse;
  std::vector<char> out(morse::encode_bound(in.size()));
  std::size_t const n =
      arch == nullptr ? morse::encode_eager(in, out.data()) : morse::encode_eager(in, out.data(), *arch);
  if (n > out.size()) std::abort();
  return {out.data(), n};
}

/// What `arch`'s decoder writes for in, in a buffer of exactly decode_bound bytes.
std::string decoded(std::string_view in, fizzgen::kernel_arch const& arch) {
  namespace morse = fizzgen::morse;
  std::vector<char> out(morse::decode_bound(in.size()));
  std::size_t const n = morse::decode(std::span<char const>(in.data(), in.size()), out.data(), arch);
  if (n > out.size()) std::abort();
  return {out.data(), n};
}

/// arch's decoder on `in` cut right after the first separator at or past each multiple of chunk.
std::string decoded_in_pieces(std::string_view in, std::size_t chunk, fizzgen::kernel_arch const& arch) {
  std::string out;
  std::size_t from = 0;
  for (std::size_t at = chunk; at < in.size(); at += chunk) {
    at = std::max(at, from);
    while (at < in.size() && !fizzgen::morse::is_separator(in[at])) ++at;
    if (at == in.size()) break;
    out += decoded(in.substr(from, at + 1 - from), arch);
    from = at + 1;
  }
  return out + decoded(in.substr(from), arch);
}

/// Every decoder kernel this CPU runs against the oracle on in, whole and in pieces.
void check_decoders(std::string_view in, std::size_t chunk) {
  std::string const want = morse_oracle::decode(in);
  for (fizzgen::kernel_arch const& arch : fizzgen::kernel_archs()) {
    if (!arch.available || arch.morse_decode == nullptr) continue;
    if (decoded(in, arch) != want || decoded_in_pieces(in, chunk, arch) != want) std::abort();
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  if (size == 0) return 0;
  std::size_t const chunk = std::size_t{data[0]} + 1;
  std::string_view const text(reinterpret_cast<char const*>(data + 1), size - 1);
  std::string const want = morse_oracle::encode(text);
  for (fizzgen::kernel_arch const& arch : fizzgen::kernel_archs()) {
    if (!arch.available || arch.morse_encode == nullptr) continue;
    if (eager(text, &arch) != eager(text, nullptr)) std::abort();
    fizzgen::morse::encode_joiner joiner;
    std::string stream;
    for (std::size_t at = 0; at < text.size(); at += chunk) {
      std::string const piece = eager(text.substr(at, std::min(chunk, text.size() - at)), &arch);
      auto const p = joiner.next(piece);
      if (p.space) stream += ' ';
      stream.append(p.body.data(), p.body.size());
    }
    if (stream != want) std::abort();
  }
  check_decoders(text, chunk);
  check_decoders(want, chunk);
  return 0;
}
