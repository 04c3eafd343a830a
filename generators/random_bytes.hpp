#pragma once
// A seeded binary payload, for consumers that must pass any byte value: `fizzgen random`. Word j
// of the stream (bytes 8j to 8j+7, little-endian) is splitmix64's output for the state
// seed + (j + 1) * 0x9e3779b97f4a7c15, the j-th number of that generator seeded with `seed`. The
// state is a counter, so any chunk is filled on its own, by any worker, and a checker needs only
// the seed and the offset to know every byte.

#include <cstddef>
#include <cstdint>

#include "generators/generator.hpp"

namespace fizzgen {

class random_bytes final : public generator {
 public:
  static constexpr std::size_t kDefaultChunkBytes = std::size_t{1} << 20;

  /// Chunks of `chunk_bytes` (rounded down to whole words, at least one); an endless stream: the
  /// engine's byte limit ends it (--bytes). A chunk's "lines" are its 8-byte words.
  explicit random_bytes(std::uint64_t seed, std::size_t chunk_bytes = kDefaultChunkBytes);

  std::size_t chunk_capacity() const noexcept override { return plan_.lines_per_chunk * 8; }
  std::optional<chunk> plan(std::uint64_t index) const noexcept override { return plan_(index); }
  std::size_t fill_at(chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept override;

 private:
  std::uint64_t seed_;
  line_plan plan_;
};

}  // namespace fizzgen
