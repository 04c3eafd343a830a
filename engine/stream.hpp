#pragma once
// The run policy: how a generator streams into an output descriptor on this machine. From the
// user's overrides and the machine it decides the thread count, pinning, spinning on a full pipe,
// each worker's ring of buffers and, for --reuse auto, the monitor of the pipe's readers; then it
// opens the output and runs the engine (engine/run.hpp).

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <stop_token>
#include <string>

#include "engine/run.hpp"
#include "engine/sizing.hpp"
#include "generators/generator.hpp"
#include "output/size_pattern.hpp"

namespace fizzgen {

/// What the user asked for; an empty optional (or false) leaves the choice to the policy.
struct stream_overrides {
  std::optional<unsigned> threads;  ///< workers (default: see run_stream)
  bool no_pin = false;              ///< never pin workers
  bool generate_only = false;       ///< a null sink that only counts, instead of fd
  bool pipe_only = false;           ///< fill each buffer once, emit it again and again
  reuse_policy reuse = reuse_policy::automatic;
  helper_mode helper = helper_mode::automatic;  ///< a helper on the reader's CPU (engine/helper_probe.hpp)
  bool idle_poll = true;                        ///< idle CPUs poll while a reader is to be woken (engine/idle_poll.hpp)
  std::optional<unsigned> buffers_per_worker;   ///< instead of the ring the pipe needs
  std::optional<std::uint64_t> byte_limit;      ///< stop after exactly this many bytes
  std::optional<std::uint64_t> rate;            ///< bytes per second
  std::optional<std::chrono::steady_clock::duration> duration;
  std::optional<size_pattern> write_sizes;  ///< write(2) calls of these sizes
  pause_plan pauses;                        ///< --stall and --burst
  std::stop_token stop;                     ///< a stop request ends the run at the next chunk
  progress_counter* progress = nullptr;     ///< when set, emitted bytes and lines are added to it
  /// Called once the output is open, just before the workers start (a progress display starts
  /// there, so that an output refused at the start prints nothing but its error).
  std::function<void()> on_start;
};

/// What ran, beside the engine's own report.
struct stream_outcome {
  run_report report;
  std::uint64_t lines = 0;     ///< newlines emitted
  std::string output_path;     ///< the sink's path: "vmsplice", "splice", "write", "null"
  std::size_t pipe_size = 0;   ///< the size the kernel granted, 0 when not a pipe
  bool spin = false;           ///< SPLICE_F_NONBLOCK polling on a full pipe
  std::string reuse;           ///< the policy, and for auto which path it took and why
  unsigned threads_asked = 0;  ///< more than the report's threads: the rest would leave the reader no CPU
  bool idle_poll = false;      ///< idle CPUs polled while the stream ran
  std::string idle_poll_why;   ///< why they did or did not
};

/// Streams gen into fd (or a counting sink with generate_only) with sizes from engine/sizing.hpp.
/// Threads, unless overridden: sizes.threads when a stored plan gives them and fd is a pipe, 1 for
/// a constant generator, else every allowed CPU but one for the reader when fd is a pipe or a
/// socket, which is also the most that work there, however many were asked for (more leave the
/// reader no CPU and only wait; FIZZGEN_EXACT_THREADS=1 starts them all, for tests of the hand-off
/// between workers). Workers are pinned only while a CPU stays free (or nothing reads), and poll a
/// full pipe only then. Into a pipe or a socket, unless paced (--rate, --stall, --burst) or asked not
/// to, idle CPUs poll while the workers run (engine/idle_poll.hpp). Before returning, fd is pointed at /dev/null when a
/// reader monitor ran, so that the reader sees the end at once. Throws std::runtime_error when the output cannot be
/// used.
stream_outcome run_stream(generator const& gen, int fd, stream_sizes const& sizes, stream_overrides const& o);

}  // namespace fizzgen
