#pragma once
// --rate, --duration, --stall and --burst for the turn holder: a token bucket against
// steady_clock that sleeps while the stream is ahead of its rate, a deadline after which nothing
// more is emitted, pauses of the writer at byte counts (fixed, or drawn with a seed), and windows
// of silence between bursts at full speed.
// Only the thread holding the turn touches it (the turn's release/acquire orders the hand-over),
// and a run without any of these options never reads the clock for it.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "output/size_pattern.hpp"

namespace fizzgen {

/// Where and how the writer pauses: --stall and --burst.
struct pause_plan {
  std::uint64_t stall_every = 0;                ///< bytes between stalls (the mean when seeded); 0: none
  std::optional<std::uint64_t> stall_seed;      ///< stall points drawn with this seed, gaps 1..2N-1
  std::chrono::steady_clock::duration stall{};  ///< how long each stall lasts
  std::chrono::steady_clock::duration burst_on{}, burst_off{};  ///< off > 0: silent off after each on
};

class pacer {
 public:
  using clock = std::chrono::steady_clock;

  /// Emits at most one piece per bucket refill: rate / kPiecesPerSecond bytes (a 1% step, so any
  /// whole second holds its rate to about 1%), at least 1 byte and at most half a chunk, so a
  /// burst after a pause (one piece of credit, then the piece due) stays within one chunk.
  static constexpr std::uint64_t kPiecesPerSecond = 100;

  /// In bursts, pieces of at most this many bytes: at full speed a few microseconds each, so a
  /// window of silence begins on time.
  static constexpr std::size_t kBurstPiece = 256 * 1024;

  /// `rate` in bytes per second (> 0), `duration` from start(); `chunk_bytes` the largest chunk.
  pacer(std::optional<std::uint64_t> rate, std::optional<clock::duration> duration, std::size_t chunk_bytes,
        pause_plan const& pauses = {}) noexcept;

  /// True when a rate, a duration, stalls or bursts are set; false: the caller emits whole chunks,
  /// unpaced.
  bool active() const noexcept { return rate_ != 0 || has_deadline_ || stall_every_ != 0 || bursts(); }
  /// Bytes per piece (0 without a rate).
  std::size_t piece_bytes() const noexcept { return piece_; }

  /// Starts the schedule and the duration at `now`.
  void start(clock::time_point now) noexcept;

  /// How many of the `left` bytes to emit next: one piece with a rate, no more than reach the next
  /// stall point, at most kBurstPiece in bursts; else all of them.
  std::size_t next_piece(std::size_t left) const noexcept {
    std::size_t n = rate_ != 0 && left > piece_ ? piece_ : left;
    if (stall_every_ != 0 && n > to_stall_) n = static_cast<std::size_t>(to_stall_);
    if (bursts() && n > kBurstPiece) n = kBurstPiece;
    return n;
  }

  /// Sleeps, in slices of at most kSlice so a stop is seen soon, until `n` more bytes may go; then
  /// counts them as sent. False, without counting them, when the deadline comes first (see
  /// timed_out()) or `stopped()` turns true.
  template <class Stopped>
  bool wait(std::size_t n, Stopped const& stopped) {
    if (stall_due_) {  // the previous piece reached a stall point
      if (!pause_until(clock::now() + stall_, stopped)) return false;
      stall_due_ = false;
      ++stalls_;
    }
    if (bursts()) {
      clock::time_point const t = clock::now();
      if (clock::duration const off = silence_left(t - start_, burst_on_, burst_off_); off.count() > 0) {
        if (!pause_until(t + off, stopped)) return false;
        ++silences_;
      }
    }
    clock::time_point now = clock::now();
    if (rate_ != 0 && next_ < now - credit_) next_ = now - credit_;  // no catching up after a pause
    for (;;) {
      if (has_deadline_ && now >= deadline_) {
        timed_out_ = true;
        return false;
      }
      if (rate_ == 0 || now >= next_) break;
      if (stopped()) return false;
      clock::time_point until = std::min(next_, now + kSlice);
      if (has_deadline_) until = std::min(until, deadline_);
      sleep_until(until);
      now = clock::now();
    }
    if (rate_ != 0) next_ += time_for(n);
    if (stall_every_ != 0) {
      // Pieces end at stall points (next_piece); a write of another size may pass one: the stall
      // follows that write.
      if (n >= to_stall_) {
        stall_due_ = true;
        to_stall_ = next_gap();
      } else {
        to_stall_ -= n;
      }
    }
    return true;
  }

  /// How much of a window of silence is left `since` the start, with bursts of `on` then `off`
  /// of silence (zero: inside a burst). Pure, for tests.
  static clock::duration silence_left(clock::duration since, clock::duration on, clock::duration off) noexcept {
    if (off.count() <= 0 || since.count() < 0) return clock::duration::zero();
    clock::duration const phase = since % (on + off);
    return phase < on ? clock::duration::zero() : on + off - phase;
  }

  /// Stalls taken, and windows of silence waited out, so far.
  std::uint64_t stalls() const noexcept { return stalls_; }
  std::uint64_t silences() const noexcept { return silences_; }

  /// The deadline ended the stream.
  bool timed_out() const noexcept { return timed_out_; }

 private:
  static constexpr clock::duration kSlice = std::chrono::milliseconds(50);
  bool bursts() const noexcept { return burst_off_.count() > 0; }
  std::uint64_t next_gap() noexcept { return gaps_ ? gaps_->next() : stall_every_; }

  /// Sleeps until t, in slices; false when the deadline (then timed_out()) or a stop comes first.
  template <class Stopped>
  bool pause_until(clock::time_point t, Stopped const& stopped) {
    for (clock::time_point now = clock::now(); now < t; now = clock::now()) {
      if (has_deadline_ && now >= deadline_) {
        timed_out_ = true;
        return false;
      }
      if (stopped()) return false;
      clock::time_point until = std::min(t, now + kSlice);
      if (has_deadline_) until = std::min(until, deadline_);
      sleep_until(until);
    }
    return true;
  }

  clock::duration time_for(std::size_t bytes) const noexcept;
  static void sleep_until(clock::time_point t);

  std::uint64_t rate_ = 0;  // bytes per second, 0: no rate
  std::size_t piece_ = 0;
  clock::duration credit_{};  // the bucket holds one piece
  bool has_deadline_ = false;
  clock::duration duration_{};
  clock::time_point deadline_{};
  clock::time_point next_{};  // when the next byte may go
  bool timed_out_ = false;
  std::uint64_t stall_every_ = 0;
  std::optional<size_pattern> gaps_;  ///< seeded stall points: the gaps between them
  clock::duration stall_{};
  std::uint64_t to_stall_ = 0;  ///< bytes until the next stall point
  bool stall_due_ = false;
  std::uint64_t stalls_ = 0;
  clock::duration burst_on_{}, burst_off_{};
  clock::time_point start_{};
  std::uint64_t silences_ = 0;
};

}  // namespace fizzgen
