#pragma once
// --reuse auto: who reads our pipe (output/readers.hpp), and may a buffer that left the pipe be
// rewritten in place? Only once an inspection begun after it left found no reader that could have
// forwarded it: a reader that starts forwarding later is caught by the next inspection, before any
// page it could have taken is rewritten.
//
// Two kinds of inspection. A scan of the whole of /proc, on the monitor's own thread, finds the
// readers (and new ones: a fork, a descriptor passed on): at start-up, every 20 ms while no safe
// reader is found, whenever a new process appeared (at most every 20 ms), and twice a second
// regardless. A re-check looks again at the readers the last scan found (about six microseconds
// for pv, output/readers.hpp), on the thread of a worker about to rewrite a buffer no inspection
// vouches for yet. One re-check vouches for every buffer that had left the pipe when it began, so
// with enough buffers a worker re-checks once every several chunks and never waits on a timer.
// (Re-checking ahead of the workers on the reader's CPU was tried: waking there every 200 µs
// slowed pv more than the re-checks cost the workers.)

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "output/readers.hpp"
#include "output/sink.hpp"

namespace fizzgen {

class reuse_monitor {
 public:
  /// Inspects the readers of the pipe on fd once now, then keeps watching in the background.
  /// `out` is the sink writing to fd: its slot count dates each inspection.
  reuse_monitor(int fd, sink const& out);
  ~reuse_monitor();
  reuse_monitor(reuse_monitor const&) = delete;
  reuse_monitor& operator=(reuse_monitor const&) = delete;

  /// The verdict as one word: odd = safe. It changes whenever the verdict flips, so a buffer
  /// emitted under state s may be rewritten in place only while the state is still s and s is odd.
  std::uint64_t state() const noexcept { return state_.load(std::memory_order_acquire); }
  static bool safe(std::uint64_t state) noexcept { return (state & 1) != 0; }

  /// True when an inspection that began once `slots` pipe slots had been emitted found the readers
  /// safe, and no later inspection found otherwise: a buffer that had left the pipe by then was not
  /// forwarded into anything its readers still hold. Re-checks the readers now when no such
  /// inspection has been made yet. The caller must know that `slots` slots have been emitted
  /// before it asks. Thread-safe.
  bool vouch(std::uint64_t slots);

  std::string why() const;
  std::uint64_t scans() const noexcept { return scans_.load(std::memory_order_relaxed); }
  std::uint64_t rechecks() const noexcept { return rechecks_.load(std::memory_order_relaxed); }
  std::uint64_t flips() const noexcept { return state() >> 1; }

 private:
  /// Scans /proc and publishes what it found.
  void scan();
  /// Re-checks the watched readers and publishes what it found; the caller holds recheck_mutex_.
  void recheck();
  /// Publishes the verdict of the inspection that drew `ticket` when `slots` slots had been
  /// emitted. A scan brings the readers to watch from now on; a re-check names the `generation`
  /// of the watch it used. Unsafe verdicts always count; a safe one only when no inspection begun
  /// after it was unsafe and, for a re-check, when its watch is still the current one.
  void publish(reader_verdict const& v, std::uint64_t slots, std::uint64_t ticket,
               std::shared_ptr<reader_watch> scanned, std::uint64_t generation = 0);
  /// Scans /proc when due; `pid` is the newest process id when the last scan began.
  void loop(std::stop_token stop, long pid);

  int fd_;
  sink const& out_;
  std::atomic<std::uint64_t> checked_slots_{0};  ///< slots emitted when the newest safe inspection began
  std::atomic<std::uint64_t> state_{0};
  std::atomic<std::uint64_t> scans_{0}, rechecks_{0};
  std::atomic<std::uint64_t> tickets_{0};  ///< drawn when an inspection begins: orders the verdicts
  std::mutex recheck_mutex_;               ///< one re-check at a time: the others find it vouched for them
  mutable std::mutex mutex_;               ///< guards the four below and every change of state_
  std::string why_;
  std::shared_ptr<reader_watch> watch_;     ///< the readers the newest scan found
  std::uint64_t generation_ = 0;            ///< bumped when watch_ is replaced
  std::uint64_t newest_unsafe_ticket_ = 0;  ///< 0: none yet (tickets start at 1)
  std::condition_variable_any wake_;
  std::jthread thread_;
};

}  // namespace fizzgen
