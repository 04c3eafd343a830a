#pragma once
// splitmix64 as a counter: output j for seed S is mix(S + (j + 1) * kGamma), so any position of a
// seeded stream is computed on its own, by any worker, without the ones before it.

#include <cstdint>

namespace fizzgen::splitmix {

inline constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15u;

/// splitmix64's output function.
constexpr std::uint64_t mix(std::uint64_t z) noexcept {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
  return z ^ (z >> 31);
}

/// Output j of splitmix64 seeded with `seed`.
constexpr std::uint64_t at(std::uint64_t seed, std::uint64_t j) noexcept { return mix(seed + (j + 1) * kGamma); }

}  // namespace fizzgen::splitmix
