#pragma once
// --rate and --duration for the turn holder: a token bucket against steady_clock that sleeps
// while the stream is ahead of its rate, and a deadline after which nothing more is emitted.
// Only the thread holding the turn touches it (the turn's release/acquire orders the hand-over),
// and a run without either option never reads the clock for it.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>

namespace fizzgen {

class pacer {
 public:
  using clock = std::chrono::steady_clock;

  /// Emits at most one piece per bucket refill: rate / kPiecesPerSecond bytes (a 1% step, so any
  /// whole second holds its rate to about 1%), at least 1 byte and at most half a chunk, so a
  /// burst after a pause (one piece of credit, then the piece due) stays within one chunk.
  static constexpr std::uint64_t kPiecesPerSecond = 100;

  /// `rate` in bytes per second (> 0), `duration` from start(); `chunk_bytes` the largest chunk.
  pacer(std::optional<std::uint64_t> rate, std::optional<clock::duration> duration, std::size_t chunk_bytes) noexcept;

  /// True when a rate or a duration is set; false: the caller emits whole chunks, unpaced.
  bool active() const noexcept { return rate_ != 0 || has_deadline_; }
  /// Bytes per piece (0 without a rate).
  std::size_t piece_bytes() const noexcept { return piece_; }

  /// Starts the schedule and the duration at `now`.
  void start(clock::time_point now) noexcept;

  /// How many of the `left` bytes to emit next: one piece with a rate, else all of them.
  std::size_t next_piece(std::size_t left) const noexcept { return rate_ != 0 && left > piece_ ? piece_ : left; }

  /// Sleeps, in slices of at most kSlice so a stop is seen soon, until `n` more bytes may go; then
  /// counts them as sent. False, without counting them, when the deadline comes first (see
  /// timed_out()) or `stopped()` turns true.
  template <class Stopped>
  bool wait(std::size_t n, Stopped const& stopped) {
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
    return true;
  }

  /// The deadline ended the stream.
  bool timed_out() const noexcept { return timed_out_; }

 private:
  static constexpr clock::duration kSlice = std::chrono::milliseconds(50);
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
};

}  // namespace fizzgen
