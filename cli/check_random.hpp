#pragma once
// check --random: verifies a `fizzgen random --seed S` stream with a generator of its own (the
// checker shares no code with generators/): word j, bytes 8j to 8j+7 little-endian, is the j-th
// output of splitmix64 seeded with S.

#include <cstdint>
#include <cstdio>
#include <optional>

namespace fizzgen::check {

/// Reads fd to its end and compares every byte; `bytes`: exactly that many must arrive (else any
/// length but none). Prints OK or the first difference (its byte offset, both values) to out,
/// problems to err; returns the exit status (0, or 1 for a difference, a wrong length or a read
/// error).
int check_random_main(std::uint64_t seed, std::optional<std::uint64_t> bytes, int fd, std::FILE* out, std::FILE* err);

}  // namespace fizzgen::check
