#pragma once
// The classic-rules FizzBuzz kernel in Morse. Every decimal digit's code is five symbols, so at a
// digit width d a number's line is exactly 6d bytes: the codes of its first d-1 digits ("prefix"),
// each with its space, then the units digit's code and '\n'. In the 30 lines 30k+1 .. 30k+30 the
// units digit is fixed by position and the prefix is 3k, 3k+1 or 3k+2, so a block is copies of
// three prefix images (a few vector stores each), one 8-byte store of a units code per number,
// and the fixed images of Fizz, Buzz and FizzBuzz. Between blocks only the last prefix digits'
// codes change.
//
// Like fizzbuzz_kernel.hpp, this only declares; generators/simd/morse_fizzbuzz_<arch>.cpp
// instantiate the template of morse_fizzbuzz_kernel_impl.hpp, each compiled for its instruction
// set, and generators/arch.cpp puts each in its arch's row (kernel_arch::morse_blocks).

#include <cstddef>
#include <cstdint>

namespace fizzgen {

/// The longest prefix (digits - 1) the kernels take; wider numbers take the scalar path.
inline constexpr std::size_t kMorseMaxPrefix = 64;
/// Bytes a kernel may store past the end it returns.
inline constexpr std::size_t kMorseKernelSlack = 64;

/// The contract of kernel_arch::morse_blocks (generators/arch.hpp): writes `blocks` 30-line classic
/// FizzBuzz blocks in Morse, the first starting at number 30k+1 whose first d-1 digits are
/// prefix[0..prefix_len). Requires 1 <= prefix_len <= kMorseMaxPrefix and that every number
/// written keeps d digits. Stores up to kMorseKernelSlack bytes past the returned end. On return
/// prefix holds the prefix of the next block.
char* morse_fizzbuzz_blocks_sse4_2(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept;
char* morse_fizzbuzz_blocks_avx2(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept;
char* morse_fizzbuzz_blocks_avx512bw(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept;
/// Aligned 64-byte lines for prefixes of 2 to 16 digits, the avx512bw kernel for the others.
char* morse_fizzbuzz_blocks_avx512vbmi(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept;

struct morse_rules_plan;

/// The contract of kernel_arch::morse_rules (generators/arch.hpp): writes `lines` lines of the Morse
/// FizzBuzz stream of custom rules with `plan` (generators/morse_rules_plan.hpp), from the number
/// whose plan.width digits are at `number` and which is `phase` mod the template's Q; every number
/// written keeps that width. `scratch` holds plan.scratch_bytes() bytes, 64-aligned. Stores up to
/// plan.store_bytes <= kMorseKernelSlack bytes past the returned end.
char* morse_fizzbuzz_rules_sse4_2(char* out, morse_rules_plan const& plan, char const* number, std::uint64_t phase,
                                  std::uint64_t lines, std::byte* scratch) noexcept;
char* morse_fizzbuzz_rules_avx2(char* out, morse_rules_plan const& plan, char const* number, std::uint64_t phase,
                                std::uint64_t lines, std::byte* scratch) noexcept;
char* morse_fizzbuzz_rules_avx512bw(char* out, morse_rules_plan const& plan, char const* number, std::uint64_t phase,
                                    std::uint64_t lines, std::byte* scratch) noexcept;

}  // namespace fizzgen
