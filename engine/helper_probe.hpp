#pragma once
// Whether the helper on the reader's CPU should fill chunks ahead for the lone worker. Its worth
// depends on the machine and the reader: it pays where the reader leaves its CPU idle much of
// the time and is woken quickly while the helper runs there; it gains nothing where the reader
// keeps its CPU busy (a pv that splices 128 KiB at a time) and cost time in a paravirtual guest,
// where waking the reader from another process is dear. So with helper_mode::automatic the worker
// measures: it times windows of chunks with the helper at work and without, alternately, lets the
// faster way run for a while, then measures again.

#include <algorithm>
#include <cstdint>

namespace fizzgen {

enum class helper_mode {
  off,        ///< no helper
  on,         ///< the helper works all the time
  automatic,  ///< the helper works while timed windows show the stream faster with it
};

class helper_probe {
 public:
  static constexpr std::uint64_t kWindow = 256;  ///< chunks per window
  /// Chunks at the start of a window left out of its time: the switch settling (the helper
  /// starting kHelperLead chunks ahead, or its last chunks still being emitted, and the reader's
  /// CPU getting used to being idle again or not). Half the window: on a 2-CPU Intel Xeon KVM guest
  /// into a plain pv, with 32 the windows without the helper that followed one with it ran 5-9.7
  /// ms instead of 4.4-4.6 early in the stream, and the first measurement chose the helper in 5
  /// of 8 runs, where it made the stream 10% slower; with 128, in 1 of 6.
  static constexpr std::uint64_t kSettle = kWindow / 2;
  /// Chunks at the start of the stream before the first window, with the helper at work.
  static constexpr std::uint64_t kWarmUp = 512;
  static constexpr std::uint64_t kProbe = 6;  ///< windows per measurement: with, without, with...
  /// Windows the helper works before the next measurement, once two measurements chose it. The
  /// first one comes in the stream's first tens of milliseconds, where the windows are least
  /// alike: whatever it chooses lasts only kRest windows before the second. Not with a margin
  /// that favours the helper (kFreshPagesMargin): there its gain is large and steady, and the
  /// second measurement's windows alone cost --reuse never 3% into pv.
  static constexpr std::uint64_t kRun = 58;
  /// Windows the worker runs alone, after a measurement chose that, before the next one: fewer,
  /// since a wrong choice there costs most (the first measurement comes while the readers are
  /// still being scanned, and one scan landing in a window with the helper once chose "alone"
  /// for 15 GiB of a 16 GiB run: 23.9 GiB/s against 30-33).
  static constexpr std::uint64_t kRest = 14;
  /// Each further measurement that chooses to work alone again doubles the rest after it, up to
  /// this: the windows with the helper cost where it does not pay (behind a reader that keeps its
  /// CPU busy, 3 of every 20 windows cost the stream 5%), and a machine seldom changes its mind.
  static constexpr std::uint64_t kMaxRest = 8 * kRest;
  /// The rest after a measurement against the helper where it is known to cost unless shown
  /// otherwise (`alone_first`): four of the longest, so that a 16 GiB run measures once.
  static constexpr std::uint64_t kAloneRest = 4 * kMaxRest;
  /// The helper works on only where its windows took this much less time than the others: where
  /// it gains nothing clear, its CPU is left to the reader (into a pv that splices 128 KiB at a
  /// time it was as often late as on time, and no faster).
  static constexpr double kMargin = 0.98;
  /// With --reuse never the helper works on unless its windows took this much more time than the
  /// others: every chunk it fills, it zeroes the fresh pages of, work the worker must otherwise
  /// do itself; a stricter margin lets noise in the windows take it off for stretches of a run.
  static constexpr double kFreshPagesMargin = 1.02;
  /// The helper works on only where, in the measurement's windows with it, at least this share of
  /// the chunks emitted were its own: a helper mostly late (into a pv that splices 128 KiB at a
  /// time, 100-150 of 1700-2200 chunks it filled were emitted, the rest filled too late) saves the
  /// worker next to nothing, and its windows came out faster or slower by chance (it stayed on in
  /// 42-59 of 62 windows of a 16 GiB run, where the worker alone was the faster).
  static constexpr double kMinShare = 0.125;

  /// The counts above are for chunks of 1 MiB; with larger chunks (`chunk_mib`), proportionally
  /// fewer, so a window lasts about as long. The helper works on where its windows took under
  /// `margin` times the others.
  ///
  /// `alone_first`: the worker starts alone (warm-up included), and a measurement that finds the
  /// helper slower rests it for kAloneRest windows at once, for where it is known to cost unless
  /// shown otherwise: with idle CPUs polling (engine/idle_poll.hpp) it keeps the reader's
  /// CPU busy and each wake-up of the reader is an interrupt again.
  explicit helper_probe(helper_mode mode, std::uint64_t chunk_mib = 1, double margin = kMargin,
                        bool alone_first = false) noexcept
      : mode_(mode),
        margin_(margin),
        window_len_(std::max<std::uint64_t>(kWindow / std::max<std::uint64_t>(chunk_mib, 1), 4)),
        settle_(std::max<std::uint64_t>(window_len_ * kSettle / kWindow, 1)),
        warm_up_(window_len_ * kWarmUp / kWindow),
        alone_first_(alone_first),
        faster_with_(!alone_first) {}

  /// Chunks per window, for this chunk size.
  std::uint64_t window_chunks() const noexcept { return window_len_; }

  /// Whether the helper works for the current chunk.
  bool helping() const noexcept {
    if (mode_ != helper_mode::automatic) return mode_ == helper_mode::on;
    if (warming_ < warm_up_) return faster_with_;
    return phase_ < kProbe ? phase_ % 2 == 0 : faster_with_;
  }

  /// The current chunk went out at `now` (seconds on a steady clock); `own` when the helper
  /// filled it. Returns true when helping() changed.
  bool chunk_done(double now, bool own = true) noexcept {
    if (mode_ != helper_mode::automatic) return false;
    if (warming_ < warm_up_) {  // start-up: the first scan of the readers, pages faulted in
      bool const before = helping();
      ++warming_;
      return helping() != before;  // alone_first: the first measurement begins with the helper
    }
    if (++chunks_ == settle_) started_ = now;
    if (phase_ < kProbe && phase_ % 2 == 0 && chunks_ > settle_) {
      ++timed_with_;
      if (own) ++own_with_;
    }
    if (chunks_ < window_len_) return false;
    bool const before = helping();
    if (phase_ < kProbe) {  // each way's least disturbed window: one scan of /proc can take a window's time
      double& best = phase_ % 2 == 0 ? with_ : without_;
      best = std::min(best, now - started_);
    }
    if (phase_ == kProbe - 1) {
      bool const pulls_weight = static_cast<double>(own_with_) >= kMinShare * static_cast<double>(timed_with_);
      bool const with = with_ < margin_ * without_ && pulls_weight;
      rest_ = with || faster_with_ ? kRest : alone_first_ ? kAloneRest : std::min(2 * rest_, kMaxRest);
      faster_with_ = with;
      with_ = without_ = kNever;
      own_with_ = timed_with_ = 0;
      ++measurements_;
    }
    ++window_;
    bool const settled = measurements_ > 1 || margin_ >= 1.0;  // see kRun
    phase_ = (phase_ + 1) % (kProbe + (faster_with_ && settled ? kRun : rest_));
    if (helping()) ++windows_helped_;
    chunks_ = 0;
    started_ = now;
    return helping() != before;
  }

  /// Windows begun with the helper at work, and all windows begun (after the first).
  std::uint64_t windows_helped() const noexcept { return windows_helped_; }
  std::uint64_t windows() const noexcept { return window_; }

 private:
  helper_mode mode_;
  double margin_;
  std::uint64_t window_len_, settle_, warm_up_;  ///< kWindow, kSettle and kWarmUp for this chunk size
  bool alone_first_;    ///< see the constructor: a verdict against the helper rests it kAloneRest
  double started_ = 0;  ///< when the timed part of the current window began
  static constexpr double kNever = 1e300;
  std::uint64_t warming_ = 0, chunks_ = 0, window_ = 0, windows_helped_ = 0;
  std::uint64_t phase_ = 0;                  ///< the window's place in its cycle: measurement, then run or rest
  std::uint64_t measurements_ = 0;           ///< measurements made so far
  double with_ = kNever, without_ = kNever;  ///< the measurement's shortest window of each kind, in seconds
  /// The measurement's timed chunks with the helper at work, and the helper's own among them.
  std::uint64_t timed_with_ = 0, own_with_ = 0;
  bool faster_with_;            ///< the way the last measurement chose (before the first: !alone_first)
  std::uint64_t rest_ = kRest;  ///< windows alone after the last measurement, when it chose that
};

}  // namespace fizzgen
