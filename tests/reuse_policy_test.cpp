// --reuse auto's decision, before a worker rewrites a buffer that was vmspliced, driven by a fake
// reuse monitor instead of /proc: each verdict the monitor can give must send the buffer where it
// says (in place, or fresh pages for the reason it names), and the stream stays the oracle's
// whichever it is, since the reader here copies. Runs where vmsplice shares pages (the probe).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <string>
#include <thread>

#include "engine/reuse_monitor.hpp"
#include "engine/run.hpp"
#include "generators/decimal.hpp"
#include "generators/fizzbuzz.hpp"
#include "oracle.hpp"
#include "output/sink.hpp"
#include "vmsplice_probe.hpp"

namespace {

using fizzgen::reuse_monitor;
using fizzgen::taint;

/// A monitor whose verdicts the test sets: the epoch (safe, or not for a reason), whether a
/// re-check vouches, and whether each re-check ends the epoch (for `ends_with`).
class fake_monitor final : public reuse_monitor {
 public:
  explicit fake_monitor(fizzgen::sink const& out) : reuse_monitor(out) {}

  void open_epoch() { set_state(make_state(++epoch_, taint::none, true), taint::none); }
  void unsafe(taint why) { set_state(make_state(++epoch_, why, false), why); }

  bool vouch(std::uint64_t) override {
    vouches.fetch_add(1, std::memory_order_relaxed);
    if (ends_with == taint::none) return vouching;
    set_state(make_state(++epoch_, taint::none, true), ends_with);  // as a re-check that found the epoch broken
    return false;
  }
  void vouch_ahead(std::uint64_t) override {}

  bool vouching = true;           ///< what a re-check answers
  taint ends_with = taint::none;  ///< none: re-checks leave the epoch as it is
  std::atomic<std::uint64_t> vouches{0};

 private:
  std::uint64_t epoch_ = 0;  // written before the run and by vouch, which one worker calls at a time here
};

struct outcome {
  fizzgen::run_report report;
  std::uint64_t reused = 0, discarded = 0;
  std::array<std::uint64_t, fizzgen::kTaints> because{};
};

/// 200000 lines in 4 KiB chunks through a 16 KiB pipe (4 slots, so buffers leave it every few
/// chunks) to a reader that copies, one worker, --reuse auto with a fake monitor set up by
/// `setup` deciding (or, without `with_monitor`, no monitor at all).
template <class Setup>
outcome run_with(Setup setup, bool with_monitor = true) {
  std::uint64_t const lines = 200000;
  fizzgen::fizzbuzz const g(*fizzgen::decimal::parse("1"), fizzgen::classic_rules(), lines, 4096);
  int fds[2];
  EXPECT_EQ(::pipe(fds), 0);
  ::fcntl(fds[1], F_SETPIPE_SZ, 16384);
  std::string got;
  std::thread reader([&] {
    char buf[16384];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
  });
  outcome o;
  {
    auto out = fizzgen::open_sink(fds[1], 16384);
    EXPECT_TRUE(out->shares_pages());
    fake_monitor m(*out);
    setup(m);
    fizzgen::run_options opts;
    opts.threads = 1;
    opts.pin = false;
    opts.reuse = fizzgen::reuse_policy::automatic;
    opts.monitor = with_monitor ? &m : nullptr;
    o.report = fizzgen::run(g, *out, opts);
  }
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  EXPECT_EQ(o.report.status, fizzgen::emit_status::ok) << o.report.error;
  EXPECT_EQ(oracle::first_difference(got, oracle::fizzbuzz_lines("1", lines)), "");
  for (auto const& w : o.report.workers) {
    o.reused += w.reused;
    o.discarded += w.discarded;
    for (std::size_t i = 0; i < fizzgen::kTaints; ++i) o.because[i] += w.discarded_because[i];
  }
  return o;
}

std::uint64_t because(outcome const& o, taint t) { return o.because[static_cast<std::size_t>(t)]; }

TEST(ReuseAuto, AnEpochThatLastsAndVouchesRewritesInPlace) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_SHARES();
  outcome const o = run_with([](fake_monitor& m) { m.open_epoch(); });
  EXPECT_GT(o.reused, 0u);
  // Only buffers still in the pipe when their turn came went to fresh pages.
  EXPECT_EQ(o.discarded, because(o, taint::in_pipe));
}

TEST(ReuseAuto, AnUnsafeVerdictGivesFreshPagesForItsReason) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_SHARES();
  for (taint const why : {taint::forwarder, taint::no_reader, taint::nested_namespace}) {
    outcome const o = run_with([why](fake_monitor& m) { m.unsafe(why); });
    EXPECT_EQ(o.reused, 0u) << to_string(why);
    EXPECT_GT(because(o, why), 0u) << to_string(why);
    EXPECT_EQ(o.discarded, because(o, why) + because(o, taint::in_pipe)) << to_string(why);
  }
}

TEST(ReuseAuto, NoReCheckVouchingMeansFreshPages) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_SHARES();
  outcome const o = run_with([](fake_monitor& m) {
    m.open_epoch();
    m.vouching = false;
  });
  EXPECT_EQ(o.reused, 0u);
  EXPECT_GT(because(o, taint::in_pipe), 0u);  // still safe, but nothing vouched the buffer out of the pipe
  EXPECT_EQ(o.discarded, because(o, taint::in_pipe));
}

TEST(ReuseAuto, AnEpochThatEndedSaysWhy) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_SHARES();
  // Every re-check ends the epoch the buffers were emitted in (and opens another): a buffer is
  // never vouched for by the epoch it was emitted in, and goes to fresh pages for the reason the
  // epoch ended.
  outcome const o = run_with([](fake_monitor& m) {
    m.open_epoch();
    m.ends_with = taint::process_created;
  });
  EXPECT_EQ(o.reused, 0u);
  EXPECT_GT(because(o, taint::process_created), 0u);
}

TEST(ReuseAuto, NoMonitorIsUnsafe) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_SHARES();
  // --reuse auto with no monitor at all (none could be made): never in place.
  outcome const o = run_with([](fake_monitor&) {}, false);
  EXPECT_EQ(o.reused, 0u);
  EXPECT_GT(because(o, taint::no_reader), 0u);
}

}  // namespace
