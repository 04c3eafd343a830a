#include "generators/arch.hpp"

#include <array>
#include <cstdlib>

namespace fizzgen {

// Defined in generators/simd/fizzbuzz_<arch>.cpp, each compiled for its instruction set.
char* fizzbuzz_blocks_avx512vbmi(char*, char*, std::size_t, std::uint64_t) noexcept;
char* fizzbuzz_blocks_avx512bw(char*, char*, std::size_t, std::uint64_t) noexcept;
char* fizzbuzz_blocks_avx2(char*, char*, std::size_t, std::uint64_t) noexcept;
char* fizzbuzz_blocks_sse4_2(char*, char*, std::size_t, std::uint64_t) noexcept;
// Defined in generators/simd/rule_template_<arch>.cpp; avx512vbmi CPUs run the avx512bw one.
char* rule_template_avx512bw(char*, rule_template const&, char const*, std::size_t, std::uint64_t,
                             std::uint64_t) noexcept;
char* rule_template_avx2(char*, rule_template const&, char const*, std::size_t, std::uint64_t, std::uint64_t) noexcept;
char* rule_template_sse4_2(char*, rule_template const&, char const*, std::size_t, std::uint64_t,
                           std::uint64_t) noexcept;

namespace morse {
// Defined in generators/simd/morse_encode_<arch>.cpp.
std::size_t morse_encode_avx512vbmi2(char const*, std::size_t, char*) noexcept;
}  // namespace morse

namespace {

/// CPU detection without xsimd: this file is compiled for the baseline, and must not share inline
/// functions with the per-arch files.
std::array<kernel_arch, 6> const& table() noexcept {
  static std::array<kernel_arch, 6> const archs = [] {
    __builtin_cpu_init();
    bool const avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512cd");
    bool const vbmi = avx512 && __builtin_cpu_supports("avx512vbmi");
    // The Morse encoder's vpcompressb is VBMI2, its bit transpose GFNI, its mask arithmetic
    // pext/pdep BMI2; its FizzBuzz kernels are those of avx512vbmi.
    bool const vbmi2 = vbmi && __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("gfni") &&
                       __builtin_cpu_supports("bmi2");
    return std::array<kernel_arch, 6>{{
        {"avx512vbmi2", 254, fizzbuzz_blocks_avx512vbmi, vbmi2, 64, rule_template_avx512bw,
         morse::morse_encode_avx512vbmi2},
        {"avx512vbmi", 254, fizzbuzz_blocks_avx512vbmi, vbmi, 64, rule_template_avx512bw},
        {"avx512bw", 254, fizzbuzz_blocks_avx512bw, avx512, 64, rule_template_avx512bw},
        {"avx2", 126, fizzbuzz_blocks_avx2, __builtin_cpu_supports("avx2") != 0, 32, rule_template_avx2},
        {"sse4.2", 62, fizzbuzz_blocks_sse4_2, __builtin_cpu_supports("sse4.2") != 0, 16, rule_template_sse4_2},
        {"scalar", 0, nullptr, true, 0},
    }};
  }();
  return archs;
}

}  // namespace

std::span<kernel_arch const> kernel_archs() noexcept { return table(); }

kernel_arch const* find_arch(std::string_view name) noexcept {
  for (auto const& a : table())
    if (a.name == name) return &a;
  return nullptr;
}

kernel_arch const& default_arch() noexcept {
  if (char const* forced = std::getenv("FIZZGEN_ARCH"))
    if (kernel_arch const* a = find_arch(forced); a != nullptr && a->available) return *a;
  for (auto const& a : table())
    if (a.available) return a;
  return table().back();
}

}  // namespace fizzgen
