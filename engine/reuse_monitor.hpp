#pragma once
// --reuse auto: may a buffer that left the pipe be rewritten in place? The argument is
// docs/reuse-soundness.md; in short, in epochs. A full scan of /proc (every process, every
// thread's descriptor table) that finds every process that could hold our read end, and none of
// them holding anything pages could sit in, opens an epoch. The epoch lasts while re-checks find
// the same readers still holding nothing of the kind, no process created since the scan began
// (the newest pid, except our own threads and kernel threads) and nobody opened the pipe (inotify
// IN_OPEN). A buffer emitted during an epoch may be rewritten in place once a re-check of that
// epoch, begun after the buffer left our pipe, found it intact. Anything else (an epoch that ended,
// a buffer emitted while unsure) gets fresh pages.
//
// Scans run on the monitor's own thread: at start-up, after an epoch ended (at once when a process
// was created or the pipe opened, every 20 ms for the first half second, then every 250 ms). A
// re-check (a few microseconds for pv, output/readers.hpp) vouches for every buffer that had left
// the pipe when it began: it reads the slot count and then the pipe's capacity before it looks.
// It is the only place --reuse auto asks the pipe its size (F_GETPIPE_SZ takes the pipe's lock,
// which the reader's splice holds), so threads may ask vouched() in a loop. A re-check runs on
// the emitting thread while the pipe is full (time it would spend waiting for room), or else on
// the thread of a worker about to rewrite a buffer no re-check vouches for yet.

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "output/readers.hpp"
#include "output/sink.hpp"

namespace fizzgen {

class reuse_monitor {
 public:
  /// Watches the readers of the pipe on fd in the background, from the moment a buffer could be
  /// rewritten (two pipes' worth emitted): a short run never pays for a scan, nor for closing an
  /// inotify descriptor (an RCU grace period, about 20 ms here). Until the first scan, nothing is
  /// vouched for. `out` is the sink writing to fd: its slot count dates each inspection. Construct
  /// before anything is written into the pipe (its timestamps tell when it was created).
  reuse_monitor(int fd, sink const& out);
  virtual ~reuse_monitor();
  reuse_monitor(reuse_monitor const&) = delete;
  reuse_monitor& operator=(reuse_monitor const&) = delete;

  /// The epoch as one word: odd = safe; bits 1-4 the reason when not. It changes whenever an epoch
  /// ends or begins, so a buffer emitted under state s (read before its emit began) may be
  /// rewritten in place only while the state is still s and s is odd.
  std::uint64_t state() const noexcept { return state_.load(std::memory_order_acquire); }
  static bool safe(std::uint64_t state) noexcept { return (state & 1) != 0; }
  /// Why a state is not safe (none for a safe one).
  static taint reason(std::uint64_t state) noexcept { return static_cast<taint>((state >> 1) & 15); }
  /// The state word of epoch change number `counter`: safe, or not for `reason`.
  static std::uint64_t make_state(std::uint64_t counter, taint reason, bool safe) noexcept {
    return counter << 5 | static_cast<std::uint64_t>(reason) << 1 | (safe ? 1 : 0);
  }
  /// Why the newest epoch that ended, ended.
  taint last_break() const noexcept { return static_cast<taint>(last_break_.load(std::memory_order_relaxed)); }

  /// True when a re-check of the current epoch, begun once pipe slot `last` (a buffer's last)
  /// had left the pipe, found it intact. Re-checks now when none has been made yet. Thread-safe.
  virtual bool vouch(std::uint64_t last);
  /// As vouch, but never re-checks (nor waits for a re-check under way), and makes no system
  /// call: for a thread that must not hold the re-check's lock, the helper at SCHED_IDLE, which
  /// asks in a loop. Thread-safe.
  virtual bool vouched(std::uint64_t last) const noexcept {
    return checked_gone_.load(std::memory_order_acquire) >= last;  // pairs with publish()
  }
  /// Re-checks now, ahead of need, when the newest re-check does not vouch for slot `last` (a
  /// buffer's last, which the caller reckons has left the pipe), the epoch is safe and no other
  /// re-check is running: for a thread that would otherwise only wait (a full pipe), so that a
  /// worker seldom has to re-check before a refill however few buffers it has. Thread-safe.
  virtual void vouch_ahead(std::uint64_t last);

  std::string why() const;
  /// What the newest safe epoch rested on ("" when none opened).
  std::string safe_why() const;
  /// The newest full scan found the readers safe (whatever ended epochs since: a process
  /// created elsewhere says nothing about these readers).
  bool readers_safe() const noexcept { return readers_safe_.load(std::memory_order_relaxed); }
  std::uint64_t scans() const noexcept { return scans_.load(std::memory_order_relaxed); }
  std::uint64_t rechecks() const noexcept { return rechecks_.load(std::memory_order_relaxed); }
  /// Seconds spent in re-checks, on whichever thread made them.
  double recheck_seconds() const noexcept {
    return static_cast<double>(recheck_ns_.load(std::memory_order_relaxed)) * 1e-9;
  }
  std::uint64_t epochs() const noexcept { return epochs_.load(std::memory_order_relaxed); }
  /// How many epochs ended (or scans found no safe epoch), by reason.
  std::array<std::uint64_t, kTaints> breaks() const;

 protected:
  /// For test doubles (tests/reuse_policy_test.cpp): a monitor that inspects nothing and starts
  /// no thread. The double overrides vouch and vouch_ahead and publishes epochs with set_state.
  explicit reuse_monitor(sink const& out);
  void set_state(std::uint64_t state, taint last_break) noexcept {
    last_break_.store(static_cast<std::uint8_t>(last_break), std::memory_order_relaxed);
    state_.store(state, std::memory_order_release);  // pairs with the acquire in state()
  }

 private:
  /// What an epoch rests on, besides its readers: read when its scan began.
  struct epoch_facts {
    std::shared_ptr<reader_watch> watch;
    std::vector<pid_t> readers;  ///< whom the scan found holding the read end
    long pid = -1;               ///< the newest pid (processes created after it are new)
    std::uint64_t opens = 0;     ///< opens of the pipe
    std::uint64_t generation = 0;
  };
  /// Scans /proc and publishes what it found; a stop request cuts it short (unsafe).
  void scan(std::stop_token const& stop);
  /// Re-checks the current epoch and publishes what it found; the caller holds recheck_mutex_.
  void recheck();
  /// Scans /proc again during an epoch: ends it when the scan finds it unsafe or finds readers
  /// the epoch's scan did not (a process that took the pipe without an open, a fork or a socket
  /// seen: by pidfd_getfd, or through a socket opened and closed between two looks).
  void confirm(std::stop_token const& stop);
  /// Opens of the pipe so far; nullopt when they cannot be counted.
  std::optional<std::uint64_t> opens();
  /// Publishes the verdict of the inspection that drew `ticket` when every slot up to `gone` had
  /// left the pipe. A scan (facts.watch set) opens a new epoch when safe; a re-check names the
  /// generation of the epoch it checked and only confirms or ends it.
  void publish(reader_verdict const& v, std::uint64_t gone, std::uint64_t ticket, epoch_facts facts);
  /// Waits until buffers could be rewritten, then scans /proc whenever due.
  void loop(std::stop_token stop);

  int fd_;
  sink const& out_;
  pipe_facts const facts_;
  pid_clock const pids_;
  std::mutex opens_mutex_;
  std::optional<open_counter> open_counter_;    ///< guarded by opens_mutex_; made by the first scan
  std::atomic<std::uint64_t> checked_gone_{0};  ///< slots out of the pipe when the newest safe re-check began
  std::atomic<std::uint64_t> state_{0};
  std::atomic<std::uint8_t> last_break_{0};
  std::atomic<bool> readers_safe_{false};
  std::atomic<std::uint64_t> scans_{0}, rechecks_{0}, epochs_{0}, recheck_ns_{0};
  std::atomic<std::uint64_t> tickets_{0};  ///< drawn when an inspection begins: orders the verdicts
  std::mutex recheck_mutex_;               ///< one re-check at a time: the others find it vouched for them
  mutable std::mutex mutex_;               ///< guards the six below and every change of state_
  std::string why_, safe_why_;
  epoch_facts epoch_;                       ///< what the newest scan found
  std::uint64_t newest_unsafe_ticket_ = 0;  ///< 0: none yet (tickets start at 1)
  bool rescan_ = false;                     ///< an epoch just ended: scan for the next one at once
  std::array<std::uint64_t, kTaints> breaks_{};
  std::condition_variable_any wake_;
  std::jthread thread_;
};

}  // namespace fizzgen
