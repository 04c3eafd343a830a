// --stall and --burst in the pacer (engine/pacer.hpp): where the pieces end, how many stalls are
// taken and that each lasts, seeded stall points, and the windows of silence between bursts.
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/pacer.hpp"

namespace fizzgen {
namespace {

using namespace std::chrono_literals;
using clock_type = pacer::clock;

constexpr auto kNotStopped = [] { return false; };

/// The sizes of the pieces a pacer cuts `total` bytes into, waiting for each as the engine does.
std::vector<std::size_t> pieces(pacer& p, std::size_t total) {
  std::vector<std::size_t> out;
  while (total > 0) {
    std::size_t const n = p.next_piece(total);
    EXPECT_TRUE(p.wait(n, kNotStopped));
    out.push_back(n);
    total -= n;
  }
  return out;
}

TEST(Pacer, StallsCutThePiecesAtTheirPointsAndLast) {
  pause_plan plan;
  plan.stall_every = 1000;
  plan.stall = 5ms;
  pacer p(std::nullopt, std::nullopt, 1 << 20, plan);
  EXPECT_TRUE(p.active());
  auto const start = clock_type::now();
  p.start(start);
  EXPECT_EQ(pieces(p, 3500), (std::vector<std::size_t>{1000, 1000, 1000, 500}));
  // A stall follows each piece that reached a point, before the next piece goes.
  EXPECT_EQ(p.stalls(), 3u);
  EXPECT_GE(clock_type::now() - start, 3 * 5ms);
}

TEST(Pacer, SeededStallPointsRepeatWithTheSeed) {
  auto const cut = [](std::uint64_t seed) {
    pause_plan plan;
    plan.stall_every = 100;
    plan.stall_seed = seed;
    plan.stall = 1ns;
    pacer p(std::nullopt, std::nullopt, 1 << 20, plan);
    p.start(clock_type::now());
    return pieces(p, 20000);
  };
  std::vector<std::size_t> const a = cut(7);
  EXPECT_EQ(a, cut(7));
  EXPECT_NE(a, cut(8));
  // Gaps of 1 to 2N-1 bytes (the last piece is what is left).
  for (std::size_t i = 0; i + 1 < a.size(); ++i) {
    EXPECT_GE(a[i], 1u);
    EXPECT_LE(a[i], 199u);
  }
  // About N apart on average: 200 pieces for 20000 bytes, give or take.
  EXPECT_GT(a.size(), 120u);
  EXPECT_LT(a.size(), 320u);
}

TEST(Pacer, SilenceFollowsEachBurst) {
  constexpr auto on = 100ms;
  constexpr auto off = 200ms;
  EXPECT_EQ(pacer::silence_left(0ms, on, off), 0ms);
  EXPECT_EQ(pacer::silence_left(99ms, on, off), 0ms);
  EXPECT_EQ(pacer::silence_left(100ms, on, off), 200ms);
  EXPECT_EQ(pacer::silence_left(250ms, on, off), 50ms);
  EXPECT_EQ(pacer::silence_left(300ms, on, off), 0ms);
  EXPECT_EQ(pacer::silence_left(450ms, on, off), 150ms);
  EXPECT_EQ(pacer::silence_left(450ms, on, 0ms), 0ms);  // no bursts
}

TEST(Pacer, BurstsGoInSmallPiecesAndWaitOutTheSilence) {
  pause_plan plan;
  plan.burst_on = 20ms;
  plan.burst_off = 30ms;
  pacer p(std::nullopt, std::nullopt, 4 << 20, plan);
  EXPECT_TRUE(p.active());
  EXPECT_EQ(p.next_piece(4 << 20), pacer::kBurstPiece);
  auto const start = clock_type::now();
  p.start(start);
  std::this_thread::sleep_for(25ms);  // into the first window of silence
  ASSERT_TRUE(p.wait(1, kNotStopped));
  EXPECT_GE(clock_type::now() - start, 50ms);  // it ends 50 ms after the start
  EXPECT_EQ(p.silences(), 1u);
}

TEST(Pacer, TheDeadlineEndsASilenceAndAStopEndsAStall) {
  pause_plan plan;
  plan.burst_on = 1ms;
  plan.burst_off = 1h;
  pacer silent(std::nullopt, 30ms, 1 << 20, plan);
  silent.start(clock_type::now());
  std::this_thread::sleep_for(2ms);
  EXPECT_FALSE(silent.wait(1, kNotStopped));
  EXPECT_TRUE(silent.timed_out());

  pause_plan stall;
  stall.stall_every = 1;
  stall.stall = 1h;
  pacer stalled(std::nullopt, std::nullopt, 1 << 20, stall);
  stalled.start(clock_type::now());
  ASSERT_TRUE(stalled.wait(1, kNotStopped));  // reaches the point: the stall comes before the next
  EXPECT_FALSE(stalled.wait(1, [] { return true; }));
  EXPECT_FALSE(stalled.timed_out());
}

}  // namespace
}  // namespace fizzgen
