#include "report/units.hpp"

#include <cstdio>
#include <iterator>

namespace fizzgen::cli {

std::string human_bytes(double bytes) {
  static constexpr char const* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  std::size_t unit = 0;
  while (bytes >= 1024 && unit + 1 < std::size(kUnits)) {
    bytes /= 1024;
    ++unit;
  }
  char buf[32];
  // Thresholds at the rounding points, so 9.999 prints "10.0", not "10.00".
  int const decimals = unit == 0 || bytes >= 99.95 ? 0 : bytes >= 9.995 ? 1 : 2;
  std::snprintf(buf, sizeof buf, "%.*f %s", decimals, bytes, kUnits[unit]);
  return buf;
}

std::string human_rate(double bytes_per_second) { return human_bytes(bytes_per_second) + "/s"; }

std::string counted(std::uint64_t n, std::string_view noun) {
  return std::to_string(n) + " " + std::string(noun) + (n == 1 ? "" : "s");
}

}  // namespace fizzgen::cli
