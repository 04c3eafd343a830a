#pragma once
// Sizes and rates for people: the unit that fits the number, as pv shows them. --progress, --stats
// and sink's report all print through these, so 10.7 MiB/s never shows as "0.01 GiB/s".

#include <cstdint>
#include <string>
#include <string_view>

namespace fizzgen::cli {

/// "0 B", "512 MiB", "1.50 GiB", "10.7 MiB": binary units, three significant digits.
std::string human_bytes(double bytes);

/// human_bytes(bytes_per_second) + "/s": "10.7 MiB/s".
std::string human_rate(double bytes_per_second);

/// "1 line", "2 lines", "0 lines": a count with its noun in the number it needs.
std::string counted(std::uint64_t n, std::string_view noun);

}  // namespace fizzgen::cli
