#include "engine/pacer.hpp"

#include <algorithm>
#include <thread>

namespace fizzgen {

pacer::pacer(std::optional<std::uint64_t> rate, std::optional<clock::duration> duration, std::size_t chunk_bytes,
             pause_plan const& pauses) noexcept
    : rate_(rate.value_or(0)),
      has_deadline_(duration.has_value()),
      duration_(duration.value_or(clock::duration{})),
      stall_every_(pauses.stall_every),
      stall_(pauses.stall),
      burst_on_(pauses.burst_on),
      burst_off_(pauses.burst_off) {
  if (stall_every_ != 0 && pauses.stall_seed) {
    std::uint64_t const hi = stall_every_ > (std::uint64_t{1} << 61) ? stall_every_ : 2 * stall_every_ - 1;
    gaps_.emplace(std::size_t{1}, static_cast<std::size_t>(hi), *pauses.stall_seed);
  }
  to_stall_ = next_gap();
  if (rate_ == 0) return;
  std::uint64_t const half_chunk = std::max<std::uint64_t>(chunk_bytes / 2, 1);
  piece_ = static_cast<std::size_t>(std::clamp<std::uint64_t>(rate_ / kPiecesPerSecond, 1, half_chunk));
  credit_ = time_for(piece_);
}

void pacer::start(clock::time_point now) noexcept {
  next_ = now;
  start_ = now;
  // A duration beyond the clock's range (--duration 290000h) is as good as none.
  deadline_ = duration_ < clock::time_point::max() - now ? now + duration_ : clock::time_point::max();
}

pacer::clock::duration pacer::time_for(std::size_t bytes) const noexcept {
  // In long double: bytes * 1e9 overflows 64 bits from about 18 GB; the rounding is below 1 ns.
  long double const seconds = static_cast<long double>(bytes) / static_cast<long double>(rate_);
  return std::chrono::duration_cast<clock::duration>(std::chrono::duration<long double>(seconds));
}

void pacer::sleep_until(clock::time_point t) { std::this_thread::sleep_until(t); }

}  // namespace fizzgen
