#include "generators/morse_decode_lanes.hpp"

#include "generators/morse_decode_kernel.hpp"
#include "generators/morse_table.hpp"

namespace fizzgen::morse {
namespace {

lane_decode_tables make_lane_tables() noexcept {
  lane_decode_tables t{};
  decode_kernel_tables const& d = decode_tables();
  for (std::size_t h = 0; h < kLaneRows; ++h)
    for (std::size_t l = 0; l < 16; ++l) t.row[h][l] = static_cast<std::uint8_t>(d.packed[16 * h + l]);
  std::size_t found = 0;
  for (unsigned i = 16 * kLaneRows; i < 256; ++i) {
    if (d.packed[i] == kUnknownMarker) continue;
    if (found < kLongCodes) {
      t.long_index[found] = static_cast<std::uint8_t>(i);
      t.long_char[found] = static_cast<std::uint8_t>(d.packed[i]);
    } else {
      ++t.long_codes_missing;
    }
    ++found;
  }
  for (unsigned m = 0; m < 256; ++m) {
    unsigned k = 0;
    for (unsigned b = 0; b < 8; ++b) {
      if (((m >> b) & 1u) == 0) continue;
      t.compact[0][m][k] = static_cast<std::uint8_t>(b);
      t.compact[1][m][k] = static_cast<std::uint8_t>(b + 8);
      ++k;
    }
    t.count[m] = static_cast<std::uint8_t>(k);
  }
  return t;
}

}  // namespace

lane_decode_tables const& lane_tables() noexcept {
  static lane_decode_tables const t = make_lane_tables();
  return t;
}

}  // namespace fizzgen::morse
