#pragma once
// Morse encoding and decoding of any input on every core: a oneTBB pipeline reads chunks in order,
// transforms them in parallel (generators/morse_codec) and writes the results in order.

#include <cstddef>
#include <cstdint>
#include <string>

#include "output/sink.hpp"

namespace fizzgen {

struct kernel_arch;

enum class morse_direction { encode, decode };

/// How a regular file is taken in. Mapping it costs a page-table entry a page unless the page
/// cache holds it in huge pages, and what a page-table entry costs depends on the machine:
/// measured on a 2-CPU VM with shadow page tables, encoding a 2 GiB file written by cat took
/// 1.09 s mapped and 0.56 s with pread; on a 2-CPU KVM guest (nested page tables) 256 MiB
/// written by cat encoded in 0.092 s mapped and 0.111 s with pread, and its Morse decoded in
/// 0.202 and 0.238 s. A file written in one write(2) (huge pages in the page cache): 0.11 s
/// mapped and 0.14 s with pread on the first.
enum class input_mapping {
  /// map a file whose first huge page the kernel maps whole (FilePmdMapped), or one whose pages
  /// a sample shows faulted in faster than copied (reading_maps_faster in morse_stream.cpp);
  /// else read it
  automatic,
  always,  ///< map every regular file that can be mapped
  never,   ///< read every input
};

struct morse_stream_options {
  morse_direction direction = morse_direction::encode;
  unsigned threads = 1;  ///< >= 1: cores transforming chunks at once
  /// Input bytes per chunk; 0: the default, kChunkBytes, or kDecodeFileChunkBytes to decode a
  /// regular file.
  std::size_t chunk_bytes = 0;
  /// 128 KiB: a chunk and its Morse (about 4x) stay within a 1 MiB L2, and a read file takes half
  /// the read(2) calls of 64 KiB chunks, each dear on a VM (256 MiB, one thread, 7 pairs against
  /// 64 KiB: encode 0.94x the time, decode 0.82x; 256 KiB 1-3% slower than 128 KiB).
  static constexpr std::size_t kChunkBytes = std::size_t{1} << 17;
  /// Decoding a file, a chunk's text is about a quarter of its Morse: 512 KiB of Morse write about
  /// 128 KiB. A 128 KiB chunk of Morse took 19 us, and two threads waited for each other's turn
  /// at every one (a 2-CPU Xeon VM, 1 GiB of Morse, 15 runs: one thread 148.9 ms against 151.4
  /// at 128 KiB, two 82.0 against 85.6). From a pipe the reader sets the pace: the smaller chunk.
  static constexpr std::size_t kDecodeFileChunkBytes = std::size_t{1} << 19;
  kernel_arch const* arch = nullptr;          ///< the kernels' arch; nullptr: default_arch()
  std::string input_name = "standard input";  ///< how errors name in_fd: a file name, or this
  input_mapping mapping = input_mapping::automatic;
};

struct morse_stream_report {
  std::uint64_t bytes_in = 0;            ///< taken from the input (all of it, unless stopped early)
  std::uint64_t bytes_out = 0;           ///< written
  emit_status status = emit_status::ok;  ///< reader_gone: the reader closed the pipe
  std::string error;                     ///< set when status is failed: "/: Is a directory"
  bool mapped = false;                   ///< the input was a regular file, mapped and read in place
};

/// Reads in_fd to its end (a regular file mapped, its chunks read in place, as options.mapping says;
/// else with pread(2) on the encoding threads when encoding; anything else read as it comes: a tty
/// line by line), transforms it chunk by chunk on `threads` cores and writes the result to out_fd in
/// order with write(2), whatever out_fd is: chunk buffers are reused, so they are never handed
/// to a pipe by reference. The bytes never depend on the chunking or the thread count. Stops at
/// the input's end, when the reader goes away (EPIPE, quietly) or on the first failed call.
morse_stream_report run_morse_stream(int in_fd, int out_fd, morse_stream_options const& options);

/// run_morse_stream from `file` ("-": standard input; else it names the input in errors) to
/// standard output. Throws std::runtime_error when standard output is closed or open only for
/// reading, or the file cannot be opened.
morse_stream_report run_morse_file(std::string const& file, morse_stream_options options);

}  // namespace fizzgen
