#include "engine/sizing.hpp"

#include <algorithm>
#include <bit>
#include <fstream>

namespace fizzgen {
namespace {

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * KiB;
constexpr std::size_t kMinChunk = 512 * KiB;  ///< below: the per-chunk cost dominates
constexpr std::size_t kMaxChunk = 1 * MiB;    ///< above: no gain measured, more in flight
/// For buffers refilled on fresh pages every time (--reuse never): the kernel zeroes whole 2 MiB
/// huge pages, so 1 MiB chunks zero twice what they emit. Measured into pv, 16 GiB: 20.6-20.9
/// GiB/s at 4 MiB against 15.7-16.8 at 1 MiB (8 MiB: 20.7-21.0, 16 MiB: 16.1-16.3).
constexpr std::size_t kFreshChunk = 4 * MiB;
constexpr std::size_t kAssumedL2 = 2 * MiB;       ///< when hwloc cannot tell
constexpr std::size_t kDefaultPipeMax = 1 * MiB;  ///< Linux's default fs.pipe-max-size
constexpr std::size_t kMinPipe = 64 * KiB;        ///< what every pipe may have

std::string sizes_text(std::size_t bytes) {
  return bytes % MiB == 0 ? std::to_string(bytes / MiB) + " MiB" : std::to_string(bytes / KiB) + " KiB";
}

/// The largest pipe the kernel will grant up to `wanted`: a power of two pages, as it rounds.
std::size_t pipe_for(std::size_t wanted, std::size_t pipe_max) {
  std::size_t const limit = pipe_max != 0 ? pipe_max : kDefaultPipeMax;
  return std::max(kMinPipe, std::bit_floor(std::min(wanted, limit)));
}

}  // namespace

stream_sizes size_stream(stream_kind kind, cache_sizes caches, std::size_t pipe_max) {
  stream_sizes s;
  std::string const pipe_note =
      pipe_max != 0 ? "fs.pipe-max-size " + sizes_text(pipe_max) : "fs.pipe-max-size unknown, assumed 1 MiB";
  switch (kind) {
    case stream_kind::constant:
      s.chunk_bytes = 1 * MiB;
      s.pipe_bytes = pipe_for(1 * MiB, pipe_max);
      s.why = "constant stream: 1 MiB chunks, the largest pipe up to 1 MiB (" + pipe_note + ")";
      return s;
    case stream_kind::fresh_pages:
      s.chunk_bytes = kFreshChunk;
      s.pipe_bytes = pipe_for(1 * MiB, pipe_max);
      s.why = "fresh pages for every chunk: 4 MiB chunks, the largest pipe up to 1 MiB (" + pipe_note + ")";
      return s;
    case stream_kind::rewritten:
      break;
  }
  std::size_t const l2 = caches.l2_bytes != 0 ? caches.l2_bytes : kAssumedL2;
  std::size_t const fits = std::bit_floor(std::max<std::size_t>(1, l2 * 3 / 4 / 3));
  // A ring that cannot stay in L2 with chunks large enough to pay their way goes to L3 whatever
  // its size: then the largest chunk, which costs the fewest calls and wake-ups.
  s.chunk_bytes = fits < kMinChunk ? kMaxChunk : std::min(fits, kMaxChunk);
  s.pipe_bytes = pipe_for(s.chunk_bytes, pipe_max);
  if (3 * s.chunk_bytes > l2 * 3 / 4) {
    s.recheck_refills = 4;
  } else if (4 * s.chunk_bytes <= l2 * 3 / 4) {
    s.recheck_refills = 2;
  }
  std::string const l2_note =
      caches.l2_bytes != 0 ? "L2 " + sizes_text(caches.l2_bytes) + " per core" : "L2 unknown, assumed 2 MiB";
  std::string fit;
  if (fits < kMinChunk) {
    fit = "no ring of 3 chunks of 512 KiB fits in 3/4 of L2: the largest chunks";
  } else if (fits > kMaxChunk) {
    fit = "chunks no larger than 1 MiB";
  } else {
    fit = "ring of 3 chunks in 3/4 of L2";
  }
  s.why = sizes_text(s.chunk_bytes) + " chunks, pipe " + sizes_text(s.pipe_bytes) + " (" + l2_note + ", " + fit + ", " +
          pipe_note + ")";
  return s;
}

unsigned ring_buffers(std::size_t pipe_bytes, std::size_t chunk_bytes, unsigned threads, unsigned recheck_refills) {
  std::size_t const chunk = std::max<std::size_t>(1, chunk_bytes);
  std::size_t const round = chunk * std::max(1u, threads);
  // A refill comes (buffers - 1) rounds after the buffer's emit, less the worker's own chunk; a
  // re-check during an emit vouches for buffers emitted a pipe and a chunk before it. R refills
  // per re-check: buffers * round >= pipe + R chunks + round.
  std::size_t needed = (pipe_bytes + round - 1) / round + 2;
  if (recheck_refills != 0) needed = std::max(needed, (pipe_bytes + recheck_refills * chunk + round - 1) / round + 1);
  return static_cast<unsigned>(std::clamp<std::size_t>(needed, 3, 32));
}

std::size_t pipe_max_size() {
  static std::size_t const max = [] {
    std::ifstream in("/proc/sys/fs/pipe-max-size");
    std::size_t n = 0;
    return in >> n ? n : std::size_t{0};
  }();
  return max;
}

}  // namespace fizzgen
