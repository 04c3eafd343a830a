#include "generators/arch.hpp"

#include <array>
#include <cstdlib>

#include "generators/fizzbuzz_kernel.hpp"        // fizzbuzz_blocks::kLineBytes
#include "generators/morse_fizzbuzz_kernel.hpp"  // morse_fizzbuzz_blocks_<arch>

namespace fizzgen {

// Defined in generators/simd/fizzbuzz_<arch>.cpp, each compiled for its instruction set.
char* fizzbuzz_blocks_avx512vbmi(char*, char*, std::size_t, std::uint64_t) noexcept;
char* fizzbuzz_blocks_avx512bw(char*, char*, std::size_t, std::uint64_t) noexcept;
char* fizzbuzz_blocks_avx2(char*, char*, std::size_t, std::uint64_t) noexcept;
char* fizzbuzz_blocks_sse4_2(char*, char*, std::size_t, std::uint64_t) noexcept;
// Defined in generators/simd/rule_template_<arch>.cpp.
char* rule_template_avx512vbmi(char*, rule_template const&, char const*, std::size_t, std::uint64_t, std::uint64_t,
                               std::byte*) noexcept;
char* rule_template_avx512bw(char*, rule_template const&, char const*, std::size_t, std::uint64_t, std::uint64_t,
                             std::byte*) noexcept;
char* rule_template_avx2(char*, rule_template const&, char const*, std::size_t, std::uint64_t, std::uint64_t,
                         std::byte*) noexcept;
char* rule_template_sse4_2(char*, rule_template const&, char const*, std::size_t, std::uint64_t, std::uint64_t,
                           std::byte*) noexcept;

namespace morse {
// Defined in generators/simd/morse_encode_<arch>.cpp.
std::size_t morse_encode_avx512vbmi2(char const*, std::size_t, char*) noexcept;
std::size_t morse_encode_avx2(char const*, std::size_t, char*) noexcept;
std::size_t morse_encode_sse4_2(char const*, std::size_t, char*) noexcept;
// Defined in generators/simd/morse_decode_<arch>.cpp.
std::size_t morse_decode_avx512vbmi2(char const*, std::size_t, char*) noexcept;
std::size_t morse_decode_avx2(char const*, std::size_t, char*) noexcept;
std::size_t morse_decode_sse4_2(char const*, std::size_t, char*) noexcept;
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
    // pext/pdep BMI2 (the decoder needs VBMI's vpmultishiftqb and VBMI2's vpcompressb); its
    // FizzBuzz kernels (plain and Morse) are those of avx512vbmi.
    bool const vbmi2 = vbmi && __builtin_cpu_supports("avx512vbmi2") && __builtin_cpu_supports("gfni") &&
                       __builtin_cpu_supports("bmi2");
    // The avx512bw and avx512vbmi rows encode and decode Morse with the avx2 kernels: every AVX-512
    // CPU has AVX2.
    // One row per instruction set, holding every kernel it has (nullptr: none, the scalar path).
    return std::array<kernel_arch, 6>{{
        {.name = "avx512vbmi2",
         .max_prefix = 254,
         .blocks = fizzbuzz_blocks_avx512vbmi,
         .available = vbmi2,
         .vector_bytes = 64,
         .rules = rule_template_avx512vbmi,
         .rules_lane = 64,
         .morse_encode = morse::morse_encode_avx512vbmi2,
         .morse_blocks = morse_fizzbuzz_blocks_avx512vbmi,
         .morse_decode = morse::morse_decode_avx512vbmi2,
         .morse_rules = morse_fizzbuzz_rules_avx512bw},
        {.name = "avx512vbmi",
         .max_prefix = 254,
         .blocks = fizzbuzz_blocks_avx512vbmi,
         .available = vbmi,
         .vector_bytes = 64,
         .rules = rule_template_avx512vbmi,
         .rules_lane = 64,
         .morse_encode = morse::morse_encode_avx2,
         .morse_blocks = morse_fizzbuzz_blocks_avx512vbmi,
         .morse_decode = morse::morse_decode_avx2,
         .morse_rules = morse_fizzbuzz_rules_avx512bw},
        {.name = "avx512bw",
         .max_prefix = fizzbuzz_blocks::kLineBytes - 2,
         .blocks = fizzbuzz_blocks_avx512bw,
         .available = avx512,
         .vector_bytes = 64,
         .rules = rule_template_avx512bw,
         .morse_encode = morse::morse_encode_avx2,
         .morse_blocks = morse_fizzbuzz_blocks_avx512bw,
         .morse_decode = morse::morse_decode_avx2,
         .morse_rules = morse_fizzbuzz_rules_avx512bw},
        {.name = "avx2",
         .max_prefix = fizzbuzz_blocks::kLineBytes - 2,
         .blocks = fizzbuzz_blocks_avx2,
         .available = __builtin_cpu_supports("avx2") != 0,
         .vector_bytes = 32,
         .rules = rule_template_avx2,
         .rules_lane = 16,
         .morse_encode = morse::morse_encode_avx2,
         .morse_blocks = morse_fizzbuzz_blocks_avx2,
         .morse_decode = morse::morse_decode_avx2,
         .morse_rules = morse_fizzbuzz_rules_avx2},
        {.name = "sse4.2",
         .max_prefix = fizzbuzz_blocks::kLineBytes - 2,
         .blocks = fizzbuzz_blocks_sse4_2,
         .available = __builtin_cpu_supports("sse4.2") != 0,
         .vector_bytes = 16,
         .rules = rule_template_sse4_2,
         .rules_lane = 16,
         .morse_encode = morse::morse_encode_sse4_2,
         .morse_blocks = morse_fizzbuzz_blocks_sse4_2,
         .morse_decode = morse::morse_decode_sse4_2,
         .morse_rules = morse_fizzbuzz_rules_sse4_2},
        {.name = "scalar", .available = true},
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
