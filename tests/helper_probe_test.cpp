// engine/helper_probe.hpp: the worker's choice of whether the helper on the reader's CPU works,
// from windows of chunks it times with and without it.

#include "engine/helper_probe.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace {

using fizzgen::helper_mode;
using fizzgen::helper_probe;

/// Feeds one chunk after another to p, each taking `with` seconds while the helper works and
/// `without` while it does not; returns helping() at every chunk.
std::vector<bool> run(helper_probe& p, std::uint64_t chunks, double with, double without, double& now) {
  std::vector<bool> seen;
  for (std::uint64_t i = 0; i < chunks; ++i) {
    seen.push_back(p.helping());
    now += p.helping() ? with : without;
    p.chunk_done(now);
  }
  return seen;
}

constexpr std::uint64_t kCycle = (helper_probe::kProbe + helper_probe::kRun) * helper_probe::kWindow;
/// A measurement and the rest after it, when it chose to work without the helper.
constexpr std::uint64_t kRestCycle = (helper_probe::kProbe + helper_probe::kRest) * helper_probe::kWindow;

std::uint64_t count(std::vector<bool> const& v, std::uint64_t from, std::uint64_t to) {
  std::uint64_t n = 0;
  for (std::uint64_t i = from; i < to; ++i) n += v[i] ? 1 : 0;
  return n;
}

TEST(HelperProbe, OnAndOffNeverChange) {
  double now = 0;
  helper_probe on(helper_mode::on), off(helper_mode::off);
  for (bool h : run(on, 3 * kCycle, 1, 2, now)) EXPECT_TRUE(h);
  for (bool h : run(off, 3 * kCycle, 1, 2, now)) EXPECT_FALSE(h);
  EXPECT_EQ(on.windows(), 0u);
}

TEST(HelperProbe, KeepsTheHelperWhereItIsFaster) {
  double now = 0;
  helper_probe p(helper_mode::automatic);
  std::vector<bool> const seen = run(p, helper_probe::kWarmUp + kRestCycle + 2 * kCycle, 1.0, 1.5, now);
  // The warm-up with the helper, then in each cycle three windows without it (the measurement);
  // the first measurement's choice lasts a rest's length, the later ones' a run's.
  EXPECT_EQ(count(seen, 0, helper_probe::kWarmUp), helper_probe::kWarmUp);
  std::uint64_t const measured = helper_probe::kProbe / 2 * helper_probe::kWindow;
  EXPECT_EQ(count(seen, helper_probe::kWarmUp, helper_probe::kWarmUp + kRestCycle), kRestCycle - measured);
  for (int c = 0; c < 2; ++c) {
    std::uint64_t const from = helper_probe::kWarmUp + kRestCycle + static_cast<std::uint64_t>(c) * kCycle;
    EXPECT_EQ(count(seen, from, from + kCycle), kCycle - measured) << "cycle " << c;
  }
  EXPECT_EQ(p.windows(), helper_probe::kProbe + helper_probe::kRest + 2 * (helper_probe::kProbe + helper_probe::kRun));
}

TEST(HelperProbe, TheFirstChoiceIsCheckedSoon) {
  // The first measurement comes early in the stream, where the windows are least alike: there
  // the helper looked faster, but from then on it costs a fifth. The second measurement comes a
  // rest's length later, not a run's, and takes it off.
  double now = 0;
  helper_probe p(helper_mode::automatic);
  run(p, helper_probe::kWarmUp + helper_probe::kProbe * helper_probe::kWindow, 1.0, 1.5, now);
  ASSERT_TRUE(p.helping());
  std::vector<bool> const seen = run(p, kRestCycle, 1.2, 1.0, now);
  EXPECT_FALSE(p.helping()) << "the helper stayed on after the second measurement found it slower";
  // Helped: the rest's windows and the second measurement's three with the helper.
  EXPECT_EQ(count(seen, 0, seen.size()), (helper_probe::kRest + helper_probe::kProbe / 2) * helper_probe::kWindow);

  // On fresh pages the helper's gain is large and steady: its first choice keeps a run's length.
  double later = 0;
  helper_probe fresh(helper_mode::automatic, 1, helper_probe::kFreshPagesMargin);
  run(fresh, helper_probe::kWarmUp + helper_probe::kProbe * helper_probe::kWindow, 1.0, 1.5, later);
  std::vector<bool> const kept = run(fresh, kRestCycle, 1.2, 1.0, later);
  EXPECT_EQ(count(kept, 0, kept.size()), kRestCycle);
}

TEST(HelperProbe, LetsTheHelperRestWhereItIsSlowerAndComesBackWhenItPays) {
  double now = 0;
  helper_probe p(helper_mode::automatic);
  std::uint64_t const run_from = helper_probe::kWarmUp + helper_probe::kProbe * helper_probe::kWindow;
  std::vector<bool> seen = run(p, run_from, 1.2, 1.0, now);  // the helper costs a fifth
  EXPECT_FALSE(p.helping()) << "slower with the helper, yet it stays";
  seen = run(p, kRestCycle - helper_probe::kProbe * helper_probe::kWindow, 1.2, 1.0, now);
  EXPECT_EQ(count(seen, 0, seen.size()), 0u) << "the slower way ran between measurements";
  // The machine changes: now the helper pays, and the next measurement brings it back, for the
  // longer run.
  seen = run(p, kCycle, 0.8, 1.0, now);
  EXPECT_TRUE(p.helping());
  EXPECT_EQ(count(seen, helper_probe::kProbe * helper_probe::kWindow, seen.size()),
            kCycle - helper_probe::kProbe * helper_probe::kWindow);
}

TEST(HelperProbe, RestsLongerEachTimeTheHelperIsSlowerAgain) {
  double now = 0;
  helper_probe p(helper_mode::automatic);
  std::vector<bool> const seen = run(p, helper_probe::kWarmUp + 40 * helper_probe::kMaxRest * helper_probe::kWindow,
                                     1.2, 1.0, now);  // the helper costs a fifth, all along
  // The stretches alone longer than a window: from a measurement's last window without the
  // helper through the rest after it. (Within a measurement the windows alternate.)
  std::uint64_t const w = helper_probe::kWindow;
  std::vector<std::uint64_t> rests;
  std::uint64_t alone = 0;
  for (std::uint64_t i = helper_probe::kWarmUp; i < seen.size(); ++i) {
    if (!seen[i]) {
      ++alone;
    } else {
      if (alone > w) rests.push_back(alone / w - 1);
      alone = 0;
    }
  }
  ASSERT_GE(rests.size(), 6u);
  std::vector<std::uint64_t> const want{helper_probe::kRest,    2 * helper_probe::kRest, 4 * helper_probe::kRest,
                                        helper_probe::kMaxRest, helper_probe::kMaxRest,  helper_probe::kMaxRest};
  EXPECT_EQ(std::vector<std::uint64_t>(rests.begin(), rests.begin() + 6), want);
}

TEST(HelperProbe, AloneFirstStartsAtRestAndRestsLongWhereTheHelperCosts) {
  // With idle CPUs polling the helper costs unless shown otherwise: no warm-up with it, and a
  // measurement against it rests it for kAloneRest windows at once.
  double now = 0;
  helper_probe p(helper_mode::automatic, 1, helper_probe::kMargin, true);
  EXPECT_FALSE(p.helping());
  std::uint64_t const w = helper_probe::kWindow;
  std::vector<bool> const seen =
      run(p, helper_probe::kWarmUp + 2 * (helper_probe::kProbe + helper_probe::kAloneRest) * w, 1.2, 1.0, now);
  EXPECT_EQ(count(seen, 0, helper_probe::kWarmUp), 0u) << "the warm-up ran with the helper";
  // The first measurement: three windows with it, then the longest rest, then the next one.
  std::uint64_t const first = helper_probe::kWarmUp;
  EXPECT_EQ(count(seen, first, first + helper_probe::kProbe * w), helper_probe::kProbe / 2 * w);
  std::uint64_t const rest = first + helper_probe::kProbe * w;
  EXPECT_EQ(count(seen, rest, rest + helper_probe::kAloneRest * w), 0u) << "a short rest after the first verdict";
  EXPECT_EQ(
      count(seen, rest + helper_probe::kAloneRest * w, rest + (helper_probe::kAloneRest + helper_probe::kProbe) * w),
      helper_probe::kProbe / 2 * w);
  std::uint64_t const second_rest = rest + (helper_probe::kAloneRest + helper_probe::kProbe) * w;
  EXPECT_EQ(count(seen, second_rest, second_rest + helper_probe::kAloneRest * w), 0u);

  // Where it pays all the same (the reader's CPU woken cheaply anyway), the first measurement
  // puts it to work.
  double later = 0;
  helper_probe pays(helper_mode::automatic, 1, helper_probe::kMargin, true);
  std::vector<bool> const kept =
      run(pays, helper_probe::kWarmUp + (helper_probe::kProbe + helper_probe::kRest) * w, 0.8, 1.0, later);
  EXPECT_EQ(count(kept, 0, helper_probe::kWarmUp), 0u);
  EXPECT_TRUE(pays.helping());
  EXPECT_EQ(count(kept, helper_probe::kWarmUp + helper_probe::kProbe * w, kept.size()), helper_probe::kRest * w);
}

TEST(HelperProbe, NoClearGainLeavesTheCpuToTheReader) {
  double now = 0;
  helper_probe p(helper_mode::automatic);
  // 1% faster with the helper: within the margin, so the reader keeps its CPU between measurements.
  run(p, helper_probe::kWarmUp + kRestCycle + helper_probe::kProbe * helper_probe::kWindow, 0.99, 1.0, now);
  EXPECT_FALSE(p.helping());
  // Only the measurements' windows with the helper (the first window is not counted).
  EXPECT_EQ(p.windows_helped(), 2 * (helper_probe::kProbe / 2) - 1);
}

TEST(HelperProbe, AHelperMostlyLateRestsHoweverItsWindowsCameOut) {
  // Its windows 10% faster, but the worker emitted only one chunk in ten of the helper's (the
  // rest it filled itself, the helper too late): by chance, not by the helper.
  for (std::uint64_t every : {10u, 7u}) {  // 10%: it rests; 14%: its share counts, it works on
    double now = 0;
    helper_probe p(helper_mode::automatic);
    for (std::uint64_t i = 0; i < helper_probe::kWarmUp + helper_probe::kProbe * helper_probe::kWindow; ++i) {
      now += p.helping() ? 0.9 : 1.0;
      p.chunk_done(now, p.helping() && i % every == 0);
    }
    EXPECT_EQ(p.helping(), every == 7u) << "the helper emitted one chunk in " << every;
  }
}

TEST(HelperProbe, OnFreshPagesTheHelperWorksOnUnlessClearlySlower) {
  // Its margin runs the other way: 1% slower with it is noise, and it keeps its work.
  double now = 0;
  helper_probe kept(helper_mode::automatic, 1, helper_probe::kFreshPagesMargin);
  run(kept, helper_probe::kWarmUp + kCycle + helper_probe::kProbe * helper_probe::kWindow, 1.01, 1.0, now);
  EXPECT_TRUE(kept.helping());
  helper_probe rests(helper_mode::automatic, 1, helper_probe::kFreshPagesMargin);
  run(rests, helper_probe::kWarmUp + helper_probe::kProbe * helper_probe::kWindow, 1.05, 1.0, now);
  EXPECT_FALSE(rests.helping());
}

TEST(HelperProbe, OneDisturbedWindowDoesNotDecide) {
  // The helper pays (0.8 of the time a chunk), but one window with it is disturbed (a scan of
  // /proc, another process): each way is judged by its least disturbed window.
  double now = 0;
  helper_probe p(helper_mode::automatic);
  run(p, helper_probe::kWarmUp, 0.8, 1.0, now);
  for (std::uint64_t window = 0; window < helper_probe::kProbe; ++window)
    run(p, helper_probe::kWindow, window == 2 ? 3.0 : 0.8, 1.0, now);
  EXPECT_TRUE(p.helping()) << "one slow window took the helper off";
}

TEST(HelperProbe, SettlingChunksAreNotTimed) {
  // The first chunks of every window take long (the switch settling): they must not decide.
  double now = 0;
  helper_probe p(helper_mode::automatic);
  for (std::uint64_t i = 0; i < helper_probe::kWarmUp + helper_probe::kProbe * helper_probe::kWindow; ++i) {
    bool const settling =
        i >= helper_probe::kWarmUp && (i - helper_probe::kWarmUp) % helper_probe::kWindow < helper_probe::kSettle;
    now += settling ? (p.helping() ? 100.0 : 0.0) : (p.helping() ? 1.0 : 1.5);
    p.chunk_done(now);
  }
  EXPECT_TRUE(p.helping());
}

}  // namespace
