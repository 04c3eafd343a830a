#pragma once
// How large the chunks, the pipe and each worker's ring of buffers are, from the machine.
//
// What a worker cycles through is its ring: the chunk it fills, the one being emitted, and those
// still in the pipe (vmsplice hands the pipe our pages, so a pipe's worth of the ring is always
// in flight). When the ring stays in the core's L2, the kernel writes at cache speed; when it
// leaves L2, every line written comes back from L3 or memory, which halved the fill on a Xeon
// with 2 MiB of L2. Each chunk also costs a vmsplice call and, often, a wake-up of the reader,
// which is what decides on a virtual machine whose pipe is slow: 256 KiB chunks into pv ran at
// two thirds of the speed of 512 KiB chunks on an EPYC VM. So:
//
//   - the pipe holds one chunk, and a worker's ring is three chunks: one filling, one emitting,
//     one in the pipe (more when several workers share the pipe: see ring_buffers);
//   - the chunk is the largest power of two with three of them in three quarters of L2 (the rest
//     is the kernel's tables, the stack and the reader's share of a core), at most 1 MiB; where
//     that is below 512 KiB (L2 under 2 MiB), the ring cannot stay in L2 with chunks that pay
//     for their calls, so it goes to L3 with the largest chunks, 1 MiB: on an EPYC VM with 1 MiB
//     of L2, 512 KiB chunks ran at 0.88x of 1 MiB chunks into pv;
//   - where the pipe cannot be as large as a chunk (fs.pipe-max-size), the pipe is as large as
//     allowed and the chunk stays;
//   - `--reuse never` takes fresh pages for every chunk: larger chunks (4 MiB) amortise the
//     page faults, and the cache does not matter; a constant stream (yes) is never rewritten, so
//     only the pipe matters: 1 MiB chunks and the largest pipe up to 1 MiB.
//
// The figures behind each rule are in README.md's "Sizing" section, with the machines they came
// from; `--stats` prints the plan and what it rested on.

#include <cstddef>
#include <string>

#include "engine/cpus.hpp"

namespace fizzgen {

enum class stream_kind {
  rewritten,    ///< buffers are refilled in place once they left the pipe
  fresh_pages,  ///< every refill on fresh pages (--reuse never)
  constant,     ///< chunks never change (yes): filled once
};

struct stream_sizes {
  std::size_t chunk_bytes = 0;
  std::size_t pipe_bytes = 0;  ///< to ask for
  unsigned threads = 0;        ///< 0: the engine's default (a stored plan may say)
  /// How many refills one re-check of the readers should vouch for under --reuse auto (see
  /// ring_buffers): 4 where the ring of three is out of L2 anyway (buffers more cost no cache),
  /// 2 where four chunks fit in 3/4 of L2 as well, 0 where only three do (the smallest ring).
  unsigned recheck_refills = 0;
  std::string why;  ///< what the sizes rest on, for --stats
};

/// The sizes for a stream of `kind` on a machine with `caches` (0: unknown) where a pipe may hold
/// up to `pipe_max` bytes (fs.pipe-max-size; 0: unknown). Pure: tests describe machines.
stream_sizes size_stream(stream_kind kind, cache_sizes caches, std::size_t pipe_max);

/// Buffers each of `threads` workers needs so that, in steady state, a buffer has left a pipe of
/// `pipe_bytes` by the time its worker comes back to it: the chunks emitted after it must fill the
/// pipe, with one chunk to spare for chunks that run short of `chunk_bytes`. At least 3, at most 32.
///
/// With `recheck_refills` (--reuse auto, where the cache allows), enough that one re-check of the
/// readers made while the pipe is full vouches for that many refills: a re-check vouches for the
/// buffers that had left the pipe when it began, and one made during an emit sees the buffers up
/// to the one emitted before it out of a pipe that held one chunk. With one worker, 1 MiB chunks,
/// a 1 MiB pipe and 4 refills: six buffers instead of three, and a re-check every fourth chunk.
/// Each re-check (a handful of system calls) delays the emitter's next vmsplice: measured into
/// pv with 1 MiB chunks, one every other chunk (four buffers) took 0.85x of --reuse always's rate,
/// one every fourth 0.93x (docs/performance.md).
unsigned ring_buffers(std::size_t pipe_bytes, std::size_t chunk_bytes, unsigned threads, unsigned recheck_refills = 0);

/// fs.pipe-max-size, read once; 0 when it cannot be read.
std::size_t pipe_max_size();

}  // namespace fizzgen
