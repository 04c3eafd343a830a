#pragma once
// How check reads its input: read(2) calls of the sizes a pattern gives (check --read-size), or
// as large as the reading code asks for; every byte that arrives is counted for --interval. One
// plan for the process, set before the check starts and read only by whichever thread reads the
// input at the time (the serial check's loop, or the ordered pipeline's reading stage).

#include <sys/types.h>

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "output/size_pattern.hpp"

namespace fizzgen::check {

struct input_plan {
  std::optional<size_pattern> sizes;               ///< each read(2) asks for the next size
  std::atomic<std::uint64_t>* received = nullptr;  ///< bytes that arrived (relaxed adds)
};

/// Sets the plan for the reads that follow.
void plan_input(input_plan plan);

/// At most `want` bytes of fd into data, as sys::read: the count, 0 at the end, -errno on an
/// error (EINTR retried). With a pattern every read(2) asks for exactly the next size; when that is
/// more than `want`, the bytes beyond it are kept for the following calls.
ssize_t read_input(int fd, char* data, std::size_t want);

}  // namespace fizzgen::check
