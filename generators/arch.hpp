#pragma once
// Run-time choice of the instruction set for the SIMD kernels: the best the CPU offers, or the one
// forced by --arch / the FIZZGEN_ARCH environment variable.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

namespace fizzgen {

struct rule_template;
struct morse_rules_plan;

/// Decodes n bytes of Morse as morse::decode does (generators/morse_decode_kernel.hpp).
using morse_decode_fn = std::size_t (*)(char const* in, std::size_t n, char* out) noexcept;

/// Writes 30-line classic FizzBuzz blocks; see fizzbuzz_blocks.
using blocks_fn = char* (*)(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept;

/// Writes custom-rules lines with the template kernel (generators/rule_template.hpp) using the
/// 64-aligned `scratch` of t.scratch_bytes bytes; nullptr when this arch's vectors are too narrow
/// for the width or the longest word line.
using template_fn = char* (*)(char* out, rule_template const& t, char const* number, std::size_t width,
                              std::uint64_t phase, std::uint64_t lines, std::byte* scratch) noexcept;

/// Writes 30-line classic FizzBuzz blocks in Morse; see generators/morse_fizzbuzz_kernel.hpp.
using morse_blocks_fn = char* (*)(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept;

/// Writes custom-rules lines in Morse with a plan; see generators/morse_fizzbuzz_kernel.hpp.
using morse_rules_fn = char* (*)(char* out, morse_rules_plan const& plan, char const* number, std::uint64_t phase,
                                 std::uint64_t lines, std::byte* scratch) noexcept;

/// Encodes n bytes to Morse as morse::encode_eager does (generators/morse_encode_kernel.hpp).
using morse_encode_fn = std::size_t (*)(char const* in, std::size_t n, char* out) noexcept;

/// One instruction set and every kernel the binary has for it (as simdutf's implementation
/// objects): a generator is given one kernel_arch and takes each of its kernels from it, never by
/// the arch's name. A kernel an arch lacks is nullptr, and the generator then takes its scalar
/// path. A new kernel is a new member here, set in every row of generators/arch.cpp's table.
struct kernel_arch {
  std::string_view name;
  std::size_t max_prefix = 0;              ///< longest prefix (digits - 1) `blocks` takes
  blocks_fn blocks = nullptr;              ///< classic FizzBuzz; nullptr: the scalar reference path only
  bool available = false;                  ///< the CPU can run it
  std::size_t vector_bytes = 0;            ///< bytes the kernels may store past their end
  template_fn rules = nullptr;             ///< the custom-rules template kernel; nullptr: the table path only
  std::size_t rules_lane = 0;              ///< lanes of `rules`'s permutation plans; 0: it takes store plans only
  morse_encode_fn morse_encode = nullptr;  ///< the Morse encoder kernel; nullptr: the scalar encoder
  morse_blocks_fn morse_blocks = nullptr;  ///< classic FizzBuzz in Morse; nullptr: scalar lines encoded
  morse_decode_fn morse_decode = nullptr;  ///< the Morse decoder kernel; nullptr: the scalar decoder
  morse_rules_fn morse_rules = nullptr;    ///< custom rules in Morse; nullptr: plain lines encoded
};

/// Every arch the binary carries, best first; the last is "scalar", always available.
std::span<kernel_arch const> kernel_archs() noexcept;

/// The arch by name, or nullptr when unknown.
kernel_arch const* find_arch(std::string_view name) noexcept;

/// The best available arch, or FIZZGEN_ARCH when set to an available one.
kernel_arch const& default_arch() noexcept;

}  // namespace fizzgen
