#pragma once
// The engine: T workers fill chunks i, i+T, i+2T... into their own buffers and take turns handing
// them to the sink, so chunk i always reaches the output before chunk i+1.

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "engine/helper_probe.hpp"
#include "engine/pacer.hpp"
#include "engine/reuse_monitor.hpp"
#include "generators/generator.hpp"
#include "output/sink.hpp"
#include "output/size_pattern.hpp"

namespace fizzgen {

/// Refills on fresh pages by why (--reuse auto), indexed by taint.
using taint_counts = std::array<std::uint64_t, kTaints>;

/// When may a buffer that was vmspliced be rewritten in place?
enum class reuse_policy {
  never,      ///< never: fresh pages (MADV_DONTNEED) before every rewrite; correct for every reader
  always,     ///< once the slots spliced after it fill our pipe: it has left the pipe (the
              ///< leaderboard mode; a reader that forwards pages with splice can still see changes)
  automatic,  ///< as always while the reuse monitor finds no reader that could forward pages,
              ///< fresh pages otherwise (and for every buffer emitted while it was unsure)
};
std::string_view to_string(reuse_policy p) noexcept;

/// Live totals for a progress display: the turn holder adds each chunk it emitted (relaxed adds,
/// one cache line the workers share only with the thread that polls it a few times a second).
struct alignas(64) progress_counter {
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<std::uint64_t> lines{0};   ///< newlines emitted
  std::atomic<std::uint64_t> stalls{0};  ///< --stall pauses so far
};
static_assert(sizeof(progress_counter) == 64);

struct run_options {
  unsigned threads = 1;                     ///< workers, >= 1
  std::optional<std::uint64_t> byte_limit;  ///< stop after exactly this many bytes (may cut a line)
  bool pin = true;                          ///< pin worker w to the w-th allowed CPU
  /// A lone worker into a pipe may take chunks that a helper thread on the reader's CPU (at
  /// SCHED_IDLE, so the reader always comes first) filled ahead; it never waits for one.
  helper_mode helper = helper_mode::automatic;
  /// Idle CPUs poll while the stream runs (engine/idle_poll.hpp): a helper at work keeps the
  /// reader's CPU busy, so under helper_mode::automatic it starts at rest (helper_probe).
  bool idle_polling = false;
  /// Nothing but the workers runs for this output (--generate-only: no reader, no kernel work):
  /// they may spin for their turns with a worker on every CPU, not only with one CPU to spare.
  bool alone = false;
  unsigned buffers_per_worker = 0;  ///< 0: enough to cover the pipe twice over
  std::size_t chunk_bytes = 0;      ///< the bytes a chunk was sized for (0: unknown), for the helper's timed windows
  reuse_policy reuse = reuse_policy::never;
  bool pipe_only = false;                ///< fill each buffer once, then emit it again and again
  reuse_monitor* monitor = nullptr;      ///< the verdict for reuse_policy::automatic (none: unsafe)
  std::stop_token stop;                  ///< a stop request ends the run at the next chunk
  progress_counter* progress = nullptr;  ///< when set, emitted bytes and lines are added to it
  std::optional<std::uint64_t> rate;     ///< bytes per second (> 0), paced by the turn holder
  std::optional<std::chrono::steady_clock::duration> duration;  ///< nothing is emitted after this long
  pause_plan pauses;                                            ///< --stall and --burst: where the turn holder pauses
  /// Cut the stream into emits of exactly these sizes (the last one perhaps shorter), across chunk
  /// edges too: the turn holder copies a piece that spans two chunks into a buffer of its own.
  std::optional<size_pattern> write_sizes;
};

/// Why a run ended.
enum class run_end {
  finished,    ///< the generator ended (--count, --to)
  byte_limit,  ///< run_options::byte_limit reached
  duration,    ///< run_options::duration passed
  stopped,     ///< a stop request (a signal)
  reader_gone,
  failed,
};
std::string_view to_string(run_end e) noexcept;

/// What one worker did, in seconds of wall time.
struct worker_stats {
  std::uint64_t chunks = 0, bytes = 0;
  double fill_seconds = 0;  ///< generating
  double wait_seconds = 0;  ///< waiting for the turn
  double emit_seconds = 0;  ///< in the output syscalls
  std::uint64_t wait_retries = 0;
  std::uint64_t reused = 0;          ///< refills in place
  std::uint64_t discarded = 0;       ///< refills on fresh pages
  taint_counts discarded_because{};  ///< --reuse auto: why each went to fresh pages
  int cpu = -1;                      ///< pinned CPU, -1 when unpinned
  std::uint64_t from_helper = 0;     ///< chunks emitted from the helper's buffers
  std::uint64_t helper_fresh = 0;    ///< the helper's buffers it gave fresh pages (counted in discarded too)
};

/// What the helper on the reader's CPU did.
struct helper_stats {
  bool ran = false;
  int cpu = -1;
  helper_mode mode = helper_mode::off;
  std::uint64_t buffers = 0;                      ///< its buffers (more under --reuse auto)
  std::uint64_t windows = 0, windows_helped = 0;  ///< automatic: timed windows, and those it worked in
  std::uint64_t filled = 0;                       ///< chunks it filled and published
  std::uint64_t late = 0;                         ///< chunks it filled that the worker had filled itself meanwhile
  std::uint64_t window_chunks = 0;                ///< automatic: chunks per timed window
  std::uint64_t reused = 0;                       ///< refills of its buffers in place
  std::uint64_t fresh = 0;        ///< refills of its buffers on fresh pages it took itself (--reuse never)
  std::uint64_t asked_fresh = 0;  ///< times it asked the worker for fresh pages for a buffer
  double fill_seconds = 0;
};

struct run_report {
  std::uint64_t bytes = 0;
  double seconds = 0;
  emit_status status = emit_status::ok;  ///< reader_gone: the reader closed the pipe
  std::string error;                     ///< set when status is failed
  bool stopped = false;                  ///< ended by a stop request
  run_end ended = run_end::finished;
  std::size_t pace_piece_bytes = 0;  ///< bytes per paced emit with a rate, else 0
  std::uint64_t stalls = 0;          ///< --stall pauses taken
  std::uint64_t silences = 0;        ///< --burst windows of silence waited out
  unsigned threads = 0;
  unsigned pinned = 0;  ///< workers that were pinned to a CPU
  unsigned buffers_per_worker = 0;
  std::size_t huge_pages_kb = 0;  ///< AnonHugePages of the process once the first chunk was filled
  bool interleaved = false;       ///< the lone worker offered each chunk to the pipe while filling the next
  std::vector<worker_stats> workers;
  helper_stats helper;
};

/// Streams gen into out until the generator ends, the byte limit is reached, the reader goes away
/// or the output fails.
run_report run(generator const& gen, sink& out, run_options const& options);

}  // namespace fizzgen
