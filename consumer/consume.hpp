#pragma once
// The reading end of a measurement: standard input consumed to its end as fast as the kernel
// hands it out, and how many bytes came in how long (what `fizzgen sink` reports).
//   splice (default): splice(2) from the pipe into /dev/null, the way pv moves data: no copy, the
//                     pages are dropped (never forwarded), so --reuse auto stays in place.
//   read:             read(2) into a buffer, the way most programs consume: one copy per byte.
// Every syscall goes through the output seam (output/sys.hpp).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>

namespace fizzgen::consumer {

/// What one consumer run measured.
struct report {
  std::uint64_t bytes = 0;
  double seconds = 0;  ///< from the first byte to the end of input (0 when no byte came)
  std::string method;  ///< "splice" or "read"
  std::string error;   ///< set when the input failed: "standard input: Input/output error"
};

/// Consumes fd to its end. With `use_splice`, a pipe is spliced into /dev/null; anything else
/// (a file, a tty) falls back to read(2) of `block_size` bytes (a multiple of 4096) and, when
/// `note` is set, says so there. Bytes are added to `progress` (when set; relaxed) as they come.
report consume(int fd, bool use_splice, std::size_t block_size, std::FILE* note,
               std::atomic<std::uint64_t>* progress = nullptr);

}  // namespace fizzgen::consumer
