// The engine: any thread count and chunk size gives the oracle's bytes in order; byte limits cut
// exactly; a reader that goes away or an output that fails stops every worker promptly.

#include "engine/run.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <future>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/cpus.hpp"
#include "generators/fizzbuzz.hpp"
#include "generators/yes.hpp"
#include "oracle.hpp"
#include "output/sink.hpp"
#include "vmsplice_probe.hpp"

namespace {

using namespace std::chrono_literals;
using fizzgen::decimal;
using fizzgen::emit_status;
using fizzgen::fizzbuzz;
using fizzgen::run_options;
using fizzgen::run_report;

/// Collects every emitted byte. emit() is called by one thread at a time, but a different one each
/// time: the engine's hand-off must order those calls, and TSan checks it does.
class collect_sink : public fizzgen::sink {
 public:
  emit_status emit(std::span<std::byte const> data) noexcept override {
    bytes.append(reinterpret_cast<char const*>(data.data()), data.size());
    ++calls;
    return emit_status::ok;
  }
  bool shares_pages() const noexcept override { return false; }
  std::string_view path() const noexcept override { return "test"; }

  std::string bytes;
  std::size_t calls = 0;
};

/// Accepts `ok_emits` emits, then reports the reader gone (or a failure) on every later one.
class stopping_sink : public fizzgen::sink {
 public:
  stopping_sink(std::size_t ok_emits, emit_status then, int err = 0) : ok_emits_(ok_emits), then_(then), err_(err) {}
  emit_status emit(std::span<std::byte const> data) noexcept override {
    calls.fetch_add(1);
    if (accepted < ok_emits_) {
      ++accepted;
      bytes.append(reinterpret_cast<char const*>(data.data()), data.size());
      return emit_status::ok;
    }
    if (then_ == emit_status::failed) return fail("write", err_);
    return then_;
  }
  bool shares_pages() const noexcept override { return false; }
  std::string_view path() const noexcept override { return "test"; }

  std::string bytes;
  std::size_t accepted = 0;
  std::atomic<std::size_t> calls{0};

 private:
  std::size_t ok_emits_;
  emit_status then_;
  int err_;
};

/// A pipe as the engine sees one with --reuse never: it shares pages, and offer() takes a seeded
/// random part of what it is offered (nothing, some, all), as a pipe with some room would.
class offering_sink : public fizzgen::sink {
 public:
  explicit offering_sink(std::uint64_t seed, std::size_t fail_after = SIZE_MAX) : rng_(seed), fail_after_(fail_after) {}
  emit_status emit(std::span<std::byte const> data) noexcept override {
    if (bytes.size() + data.size() > fail_after_) return emit_status::reader_gone;
    bytes.append(reinterpret_cast<char const*>(data.data()), data.size());
    return emit_status::ok;
  }
  std::size_t offer(std::span<std::byte const> data) noexcept override {
    std::size_t n = 0;
    switch (rng_() % 3) {
      case 0:
        break;
      case 1:
        n = static_cast<std::size_t>(rng_() % (data.size() + 1));
        break;
      default:
        n = data.size();
    }
    n = std::min(n, fail_after_ - std::min(fail_after_, bytes.size()));
    bytes.append(reinterpret_cast<char const*>(data.data()), n);
    offered += n;
    return n;
  }
  bool shares_pages() const noexcept override { return true; }
  std::string_view path() const noexcept override { return "test pipe"; }
  std::size_t pipe_size() const noexcept override { return 64 * 1024; }

  std::string bytes;
  std::size_t offered = 0;

 private:
  std::mt19937_64 rng_;
  std::size_t fail_after_;
};

/// A generator that delays some fills, so workers finish their chunks out of order and the
/// hand-off has to restore the order.
class jittery : public fizzgen::generator {
 public:
  explicit jittery(fizzgen::generator const& inner) : inner_(inner) {}
  std::size_t chunk_capacity() const noexcept override { return inner_.chunk_capacity(); }
  std::optional<fizzgen::chunk> plan(std::uint64_t i) const noexcept override { return inner_.plan(i); }
  std::size_t fill_at(fizzgen::chunk const& c, std::span<std::byte> out, std::size_t at) const noexcept override {
    std::uint64_t const h = (c.index * 0x9E3779B97F4A7C15ull) >> 61;  // 0..7, fixed per chunk
    if (h < 3) std::this_thread::sleep_for(std::chrono::microseconds(50 * (h + 1)));
    return inner_.fill_at(c, out, at);
  }
  bool constant() const noexcept override { return inner_.constant(); }

 private:
  fizzgen::generator const& inner_;
};

/// Runs f on its own thread; if it has not finished within `limit`, the whole test binary aborts
/// (a hung engine must fail CI, not block it).
run_report run_with_watchdog(std::function<run_report()> const& f, std::chrono::seconds limit = 20s) {
  std::promise<void> done;
  std::thread watchdog([&, returned = done.get_future()] {
    if (returned.wait_for(limit) == std::future_status::ready) return;  // woken by the return itself
    std::fprintf(stderr, "engine_test: run() did not return within %llds: hang\n",
                 static_cast<long long>(limit.count()));
    std::abort();
  });
  run_report const r = f();
  done.set_value();
  watchdog.join();
  return r;
}

run_report run_guarded(fizzgen::generator const& g, fizzgen::sink& s, run_options const& o) {
  return run_with_watchdog([&] { return fizzgen::run(g, s, o); });
}

/// Lines in the first n chunks of g's plan.
std::uint64_t lines_in_chunks(fizzgen::generator const& g, std::uint64_t n) {
  std::uint64_t lines = 0;
  for (std::uint64_t i = 0; i < n; ++i)
    if (auto const c = g.plan(i)) lines += c->lines;
  return lines;
}

/// How many chunks g's plan has (g must be bounded).
std::uint64_t chunk_count(fizzgen::generator const& g) {
  std::uint64_t n = 0;
  while (g.plan(n)) ++n;
  return n;
}

run_options opts(unsigned threads, std::optional<std::uint64_t> byte_limit = std::nullopt, unsigned buffers = 0) {
  run_options o;
  o.threads = threads;
  o.byte_limit = byte_limit;
  o.pin = false;  // tests share the machine; pinning gets its own test
  o.buffers_per_worker = buffers;
  return o;
}

decimal dec(std::string const& s) { return *decimal::parse(s); }

TEST(Engine, ThreadsAndChunkSizesGiveTheOracleBytes) {
  // More threads than this machine has cores make every hand-off slow: fewer chunks when tiny.
  for (std::size_t cb : {std::size_t{64}, std::size_t{100}, std::size_t{1000}, std::size_t{4096}}) {
    std::uint64_t const lines = cb < 1000 ? 1500 : 5000;
    std::string const want = oracle::fizzbuzz_lines("1", lines);
    fizzbuzz const g(dec("1"), fizzgen::classic_rules(), lines, cb);
    for (unsigned t = 1; t <= 8; ++t) {
      collect_sink s;
      run_report const r = run_guarded(g, s, opts(t));
      ASSERT_EQ(oracle::first_difference(s.bytes, want), "") << t << " threads, chunk " << cb;
      EXPECT_EQ(r.bytes, want.size());
      EXPECT_EQ(r.status, emit_status::ok);
      EXPECT_TRUE(r.error.empty());
      EXPECT_EQ(r.threads, t);
      EXPECT_EQ(r.pinned, 0u);
      EXPECT_GE(r.seconds, 0.0);
    }
  }
}

TEST(Engine, OutOfOrderFillsAreEmittedInOrder) {
  std::string const from = "99999999999999999990";
  oracle::rules const rs{{2, "a"}, {3, "bb"}, {7, "ccc"}};
  std::uint64_t const lines = 3000;
  std::string const want = oracle::fizzbuzz_lines(from, rs, lines);
  fizzbuzz const inner(dec(from), {{2, "a"}, {3, "bb"}, {7, "ccc"}}, lines, 200);
  jittery const g(inner);
  for (unsigned t : {1u, 2u, 3u, 5u, 8u}) {
    for (unsigned buffers : {1u, 2u, 3u}) {
      collect_sink s;
      run_report const r = run_guarded(g, s, opts(t, std::nullopt, buffers));
      ASSERT_EQ(oracle::first_difference(s.bytes, want), "") << t << " threads, " << buffers << " buffers";
      EXPECT_EQ(r.status, emit_status::ok);
    }
  }
}

TEST(Engine, WindowPastTwoToThe64) {
  std::string const from = "18446744073709550616";  // 2^64 - 1000
  std::string const want = oracle::fizzbuzz_lines(from, 2000);
  fizzbuzz const g(dec(from), fizzgen::classic_rules(), 2000, 128);
  for (unsigned t : {1u, 4u, 7u}) {
    collect_sink s;
    run_guarded(g, s, opts(t));
    ASSERT_EQ(oracle::first_difference(s.bytes, want), "") << t << " threads";
  }
}

TEST(Engine, PinnedRunGivesTheSameBytes) {
  std::string const want = oracle::fizzbuzz_lines("1", 3000);
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), 3000, 256);
  for (unsigned t : {1u, 3u}) {
    collect_sink s;
    run_options o = opts(t);
    o.pin = true;
    run_report const r = run_guarded(g, s, o);
    EXPECT_EQ(oracle::first_difference(s.bytes, want), "");
    EXPECT_LE(r.pinned, t);
    EXPECT_EQ(r.threads, t);
  }
}

TEST(Engine, ByteLimitCutsExactly) {
  std::uint64_t const lines = 1500;
  std::string const all = oracle::fizzbuzz_lines("1", lines);
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), lines, 100);
  // A line boundary, mid-line, a chunk boundary and one off it, the whole stream and beyond.
  std::size_t const first_chunk = oracle::fizzbuzz_lines("1", lines_in_chunks(g, 3)).size();
  std::vector<std::uint64_t> const limits{1,
                                          2,
                                          3,
                                          7,
                                          first_chunk - 1,
                                          first_chunk,
                                          first_chunk + 1,
                                          5 * first_chunk,
                                          all.size() / 2 + 3,
                                          all.size() - 1,
                                          all.size()};
  for (std::uint64_t limit : limits) {
    for (unsigned t : {1u, 2u, 3u, 8u}) {
      collect_sink s;
      run_report const r = run_guarded(g, s, opts(t, limit));
      ASSERT_EQ(oracle::first_difference(s.bytes, all.substr(0, limit)), "")
          << "limit " << limit << ", " << t << " threads";
      EXPECT_EQ(r.bytes, limit);
      EXPECT_EQ(r.status, emit_status::ok);
    }
  }
  for (std::uint64_t limit : {all.size() + 1, all.size() * 10, std::size_t{UINT64_MAX}}) {
    collect_sink s;
    run_report const r = run_guarded(g, s, opts(3, limit));
    EXPECT_EQ(oracle::first_difference(s.bytes, all), "") << "limit " << limit;
    EXPECT_EQ(r.bytes, all.size());
  }
}

TEST(Engine, ByteLimitZeroEmitsNothing) {
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), std::nullopt, 100);
  for (unsigned t : {1u, 4u}) {
    collect_sink s;
    run_report const r = run_guarded(g, s, opts(t, 0));
    EXPECT_TRUE(s.bytes.empty());
    EXPECT_EQ(r.bytes, 0u);
    EXPECT_EQ(r.status, emit_status::ok);
  }
}

TEST(Engine, ByteLimitOnAnUnboundedStream) {
  std::string const all = oracle::fizzbuzz_lines("1", 40000);
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), std::nullopt, 1000);
  for (std::uint64_t limit : {std::uint64_t{100000}, std::uint64_t{100003}, std::uint64_t{1}}) {
    for (unsigned t : {1u, 2u, 8u}) {
      collect_sink s;
      run_report const r = run_guarded(g, s, opts(t, limit));
      ASSERT_EQ(oracle::first_difference(s.bytes, all.substr(0, limit)), "")
          << "limit " << limit << ", " << t << " threads";
      EXPECT_EQ(r.bytes, limit);
    }
  }
}

TEST(Engine, ReaderGoneStopsEveryWorker) {
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), std::nullopt, 100);
  for (unsigned t = 1; t <= 8; ++t) {
    for (std::size_t ok_emits : {std::size_t{0}, std::size_t{1}, std::size_t{5}, std::size_t{37}}) {
      stopping_sink s(ok_emits, emit_status::reader_gone);
      auto const start = std::chrono::steady_clock::now();
      run_report const r = run_guarded(g, s, opts(t));
      auto const took = std::chrono::steady_clock::now() - start;
      EXPECT_EQ(r.status, emit_status::reader_gone) << t << " threads";
      EXPECT_TRUE(r.error.empty()) << r.error;
      // Exactly one emit saw the reader gone: nobody emitted after it.
      EXPECT_EQ(s.calls.load(), ok_emits + 1) << t << " threads";
      // What was accepted is the stream's first ok_emits chunks, in order.
      ASSERT_EQ(oracle::first_difference(s.bytes, oracle::fizzbuzz_lines("1", lines_in_chunks(g, ok_emits))), "")
          << t << " threads";
      EXPECT_LT(took, 5s);
    }
  }
}

TEST(Engine, ReaderGoneWithYes) {
  fizzgen::yes const g({"y"}, std::nullopt, 4096);
  for (unsigned t : {1u, 4u, 8u}) {
    stopping_sink s(10, emit_status::reader_gone);
    run_report const r = run_guarded(g, s, opts(t));
    EXPECT_EQ(r.status, emit_status::reader_gone);
    EXPECT_EQ(s.calls.load(), 11u);
    EXPECT_EQ(oracle::first_difference(s.bytes, oracle::yes_bytes({"y"}, s.bytes.size())), "");
    EXPECT_EQ(s.bytes.size(), 10 * 4096u);
  }
}

TEST(Engine, FailingSinkReportsTheError) {
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), std::nullopt, 100);
  for (unsigned t : {1u, 3u, 8u}) {
    for (std::size_t ok_emits : {std::size_t{0}, std::size_t{4}}) {
      stopping_sink s(ok_emits, emit_status::failed, ENOSPC);
      run_report const r = run_guarded(g, s, opts(t));
      EXPECT_EQ(r.status, emit_status::failed);
      EXPECT_EQ(r.error, std::string("standard output: ") + std::strerror(ENOSPC));
      EXPECT_EQ(s.calls.load(), ok_emits + 1);
    }
  }
}

TEST(Engine, YesWithByteLimit) {
  std::vector<std::string> const words{"hello", "world"};
  fizzgen::yes const g(words, std::nullopt, 4096);
  for (std::uint64_t limit :
       {std::uint64_t{1}, std::uint64_t{12}, std::uint64_t{4096}, std::uint64_t{1000003}, std::uint64_t{3} << 20}) {
    for (unsigned t : {1u, 2u, 4u}) {
      for (unsigned buffers : {1u, 2u}) {
        collect_sink s;
        run_report const r = run_guarded(g, s, opts(t, limit, buffers));
        ASSERT_EQ(s.bytes.size(), limit);
        ASSERT_EQ(oracle::first_difference(s.bytes, oracle::yes_bytes(words, limit)), "")
            << "limit " << limit << ", " << t << " threads";
        EXPECT_EQ(r.bytes, limit);
        EXPECT_EQ(r.status, emit_status::ok);
      }
    }
  }
}

TEST(Engine, YesWithLineLimitAndOddChunks) {
  std::vector<std::string> const words{"", "a"};
  fizzgen::yes const g(words, 10007, 100);  // " a\n": 33 lines per chunk, last chunk partial
  for (unsigned t : {1u, 3u, 8u}) {
    collect_sink s;
    run_guarded(g, s, opts(t));
    ASSERT_EQ(oracle::first_difference(s.bytes, oracle::yes_lines(words, 10007)), "") << t << " threads";
  }
}

TEST(Engine, VmsplicedChunksStayIntactUntilRead) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  // Everything is spliced into a pipe nobody reads until run() returns: the pipe still holds
  // references to the pages of every chunk while the workers refill their buffers. Rewriting those
  // pages in place would change bytes already "written"; the output must be exactly the oracle,
  // under either reuse policy (`always` may only reuse what provably left the pipe: nothing here).
  for (auto const policy : {fizzgen::reuse_policy::never, fizzgen::reuse_policy::always}) {
    for (unsigned t : {1u, 3u}) {
      for (unsigned buffers : {0u, 1u, 2u}) {
        int fds[2];
        ASSERT_EQ(::pipe(fds), 0);
        auto out = fizzgen::open_sink(fds[1]);
        ASSERT_EQ(out->path(), "vmsplice");
        // Where vmsplice copies there are no references to keep intact, but the bytes must still
        // be the oracle's.
        ASSERT_EQ(out->shares_pages(), fizzgen::probe_vmsplice() == fizzgen::vmsplice_kind::shares);
        std::size_t const slots = out->pipe_size() / 4096;
        ASSERT_GE(slots, 4u);
        // Chunks of about 1000 bytes start on a page (buffers are page aligned) and take one slot
        // each: leave two slots free so that no vmsplice ever blocks.
        std::uint64_t const lines =
            lines_in_chunks(fizzbuzz(dec("1"), fizzgen::classic_rules(), std::nullopt, 1000), slots - 2);
        fizzbuzz const g(dec("1"), fizzgen::classic_rules(), lines, 1000);
        ASSERT_EQ(chunk_count(g), slots - 2);
        run_options o = opts(t, std::nullopt, buffers);
        o.reuse = policy;
        run_report const r = run_guarded(g, *out, o);
        EXPECT_EQ(r.status, emit_status::ok) << r.error;
        ::close(fds[1]);
        std::string got;
        char buf[65536];
        for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
        ::close(fds[0]);
        ASSERT_EQ(oracle::first_difference(got, oracle::fizzbuzz_lines("1", lines)), "")
            << fizzgen::to_string(policy) << ", " << t << " threads, " << buffers << " buffers";
      }
    }
  }
}

TEST(Engine, RealPipeWithACopyingReader) {
  // A reader that read(2)s copies the bytes out: in-place reuse once the pipe's slots turned over
  // (`always`) and fresh pages (`never`) must both deliver the oracle's bytes. A 4-slot pipe turns
  // over every few chunks, so `always` really rewrites buffers in place.
  std::uint64_t const lines = 300000;
  std::string const want = oracle::fizzbuzz_lines("1", lines);
  for (auto const policy : {fizzgen::reuse_policy::never, fizzgen::reuse_policy::always}) {
    std::uint64_t reused = 0;
    for (int pipe_size : {16384, 1 << 20}) {
      for (std::size_t cb : {std::size_t{4096}, std::size_t{20000}}) {
        fizzbuzz const g(dec("1"), fizzgen::classic_rules(), lines, cb);
        for (unsigned t : {1u, 2u, 4u}) {
          int fds[2];
          ASSERT_EQ(::pipe(fds), 0);
          ::fcntl(fds[1], F_SETPIPE_SZ, pipe_size);  // 1 MiB may be refused (EPERM): then 64 KiB
          std::string got;
          std::thread reader([&] {
            char buf[16384];
            for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
          });
          run_report r;
          {
            auto out = fizzgen::open_sink(fds[1], static_cast<std::size_t>(pipe_size));
            run_options o = opts(t);
            o.reuse = policy;
            r = run_guarded(g, *out, o);
          }
          ::close(fds[1]);
          reader.join();
          ::close(fds[0]);
          EXPECT_EQ(r.status, emit_status::ok) << r.error;
          ASSERT_EQ(oracle::first_difference(got, want), "")
              << fizzgen::to_string(policy) << ", pipe " << pipe_size << ", chunk " << cb << ", " << t << " threads";
          for (auto const& w : r.workers) reused += w.reused;
        }
      }
    }
    // `never` never rewrites spliced pages in place; `always` did, so the test exercised it
    // (where vmsplice copies, no buffer is ever held by the pipe: nothing to rewrite in place).
    if (policy == fizzgen::reuse_policy::never) {
      EXPECT_EQ(reused, 0u);
    } else if (fizzgen::probe_vmsplice() == fizzgen::vmsplice_kind::shares) {
      EXPECT_GT(reused, 0u);
    }
  }
}

/// Calls emit(fd) with the write end of a fresh pipe (resized to pipe_size unless 0) while a
/// thread reads everything out of it, sleeping `pause` after each read; what it read.
template <class Emit>
std::string through_a_pipe(Emit emit, int pipe_size = 0, std::chrono::microseconds pause = 0us) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe() failed";
  if (pipe_size != 0) ::fcntl(fds[1], F_SETPIPE_SZ, pipe_size);
  std::string got;
  std::thread reader([&] {
    char buf[16384];
    for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) {
      got.append(buf, static_cast<std::size_t>(n));
      std::this_thread::sleep_for(pause);
    }
  });
  emit(fds[1]);
  ::close(fds[1]);
  reader.join();
  ::close(fds[0]);
  return got;
}

TEST(Helper, ChunksFilledOnTheReadersCpuGoOutInOrder) {
  // One pinned worker into a real pipe, a slow reader: the helper on the other CPU fills chunks
  // ahead, the worker emits them when ready and fills the rest itself. Whatever the split, the
  // bytes are the oracle's, the helper's buffers are rewritten in place only where the policy
  // allows it, and a byte limit still cuts exactly.
  if (fizzgen::allowed_cpus().size() < 2) GTEST_SKIP() << "the helper needs a CPU beside the worker's";
  std::uint64_t const lines = 200000;
  std::string const want = oracle::fizzbuzz_lines("1", lines);
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), lines, 16384);
  struct variant {
    fizzgen::reuse_policy policy;
    std::optional<std::uint64_t> limit;
  };
  for (variant const v :
       {variant{fizzgen::reuse_policy::always, std::nullopt}, variant{fizzgen::reuse_policy::automatic, std::nullopt},
        variant{fizzgen::reuse_policy::always, std::uint64_t{777777}}}) {
    std::string const what = std::string(fizzgen::to_string(v.policy)) + (v.limit ? ", byte limit" : "");
    // The helper runs only when its CPU has nothing else to do: on a loaded machine a run may end
    // before it filled anything; a few tries (each one checked) give it the chance.
    run_report r;
    std::string got;
    for (int attempt = 0; attempt < 5 && (attempt == 0 || r.workers.empty() || r.workers[0].from_helper == 0);
         ++attempt) {
      got = through_a_pipe(
          [&](int fd) {
            auto out = fizzgen::open_sink(fd, 65536);
            run_options o = opts(1, v.limit);
            o.pin = true;
            o.reuse = v.policy;  // automatic without a monitor: nothing is vouched for
            o.helper = fizzgen::helper_mode::on;
            r = run_guarded(g, *out, o);
          },
          65536, 100us);  // a reader slower than the worker: the helper gets ahead
      ASSERT_EQ(oracle::first_difference(got, v.limit ? want.substr(0, *v.limit) : want), "") << what;
    }
    EXPECT_EQ(r.status, emit_status::ok) << r.error;
    std::string const expected = v.limit ? want.substr(0, *v.limit) : want;
    ASSERT_EQ(oracle::first_difference(got, expected), "") << what;
    if (fizzgen::probe_vmsplice() != fizzgen::vmsplice_kind::shares) continue;  // a copying sink: no helper
    ASSERT_TRUE(r.helper.ran) << what;
    EXPECT_EQ(r.helper.mode, fizzgen::helper_mode::on);
    EXPECT_GT(r.helper.filled + r.helper.late, 0u) << what;
    EXPECT_GT(r.workers[0].from_helper, 0u) << what;
    EXPECT_LE(r.workers[0].from_helper, r.helper.filled) << what;
    if (v.policy == fizzgen::reuse_policy::always) {
      EXPECT_EQ(r.helper.buffers, 6u) << what;  // the lead of 4 and two
    }
    if (v.policy == fizzgen::reuse_policy::automatic) {
      // Without a monitor nothing is ever vouched for: the helper filled each of its buffers
      // once, then asked for fresh pages, which the worker gives only while readers are watched
      // and safe: it waited to the end.
      EXPECT_EQ(r.helper.reused, 0u) << what << ": the helper rewrote a buffer in place";
      EXPECT_EQ(r.workers[0].reused, 0u) << what;
      EXPECT_EQ(r.helper.buffers, 8u) << what;  // under --reuse auto, the lead of 4 and four more
      EXPECT_LE(r.helper.filled + r.helper.late, r.helper.buffers) << what << ": past its buffers without a refill";
      EXPECT_LE(r.helper.asked_fresh, 1u) << what << ": asked again before the worker gave fresh pages";
      EXPECT_EQ(r.workers[0].helper_fresh, 0u) << what;
    } else {
      EXPECT_LE(r.helper.reused, r.helper.filled + r.helper.late) << what;
    }
  }
}

TEST(Helper, NotStartedWhereItCannotHelp) {
  // Off, two workers or an unpinned worker: no thread on the reader's CPU, whatever the policy.
  std::uint64_t const lines = 20000;
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), lines, 16384);
  for (int variant = 0; variant < 8; ++variant) {
    bool const never = variant % 2 == 1;
    run_report r;
    std::string const got = through_a_pipe([&](int fd) {
      auto out = fizzgen::open_sink(fd);
      run_options o = opts(variant / 2 == 1 ? 2 : 1);
      o.pin = variant / 2 != 2;
      o.reuse = never ? fizzgen::reuse_policy::never : fizzgen::reuse_policy::always;
      o.helper = variant / 2 == 0 ? fizzgen::helper_mode::off : fizzgen::helper_mode::on;
      r = run_guarded(g, *out, o);
    });
    EXPECT_EQ(r.status, emit_status::ok) << r.error;
    EXPECT_EQ(oracle::first_difference(got, oracle::fizzbuzz_lines("1", lines)), "") << "variant " << variant;
    if (variant / 2 != 3) {
      EXPECT_FALSE(r.helper.ran) << "variant " << variant;
      for (auto const& w : r.workers) EXPECT_EQ(w.from_helper, 0u);
    }
  }
}

/// Like through_a_pipe, but the reader forwards: it splices our pipe into a pipe of its own, and a
/// second thread reads that one, pausing `pause` after each read, so our pages sit there long after
/// they left our pipe. Pages rewritten after their emit would show in what it reads.
template <class Emit>
std::string through_a_forwarder(Emit emit, std::chrono::microseconds pause) {
  int ours[2], theirs[2];
  if (::pipe(ours) != 0 || ::pipe(theirs) != 0) return "pipe() failed";
  ::fcntl(ours[1], F_SETPIPE_SZ, 65536);
  ::fcntl(theirs[1], F_SETPIPE_SZ, 1 << 20);
  std::thread forwarder([&] {
    while (::splice(ours[0], nullptr, theirs[1], nullptr, 1 << 20, 0) > 0) {
    }
    ::close(theirs[1]);
  });
  std::string got;
  std::thread reader([&] {
    char buf[16384];
    for (ssize_t n; (n = ::read(theirs[0], buf, sizeof buf)) > 0;) {
      got.append(buf, static_cast<std::size_t>(n));
      std::this_thread::sleep_for(pause);
    }
  });
  emit(ours[1]);
  ::close(ours[1]);
  forwarder.join();
  reader.join();
  ::close(ours[0]);
  ::close(theirs[0]);
  return got;
}

TEST(Helper, WithReuseNeverItFillsOnFreshPagesAndForwardedPagesStayIntact) {
  // --reuse never, one pinned worker into a pipe read by a forwarder that keeps up to 1 MiB of our
  // pages in a pipe of its own: the helper on the other CPU takes fresh pages for every refill of
  // its buffers, as the worker does for its own, and the forwarded bytes stay the oracle's, with
  // and without interleaved emits (three buffers and one).
  if (fizzgen::allowed_cpus().size() < 2) GTEST_SKIP() << "the helper needs a CPU beside the worker's";
  std::uint64_t const lines = 600000;  // 60 chunks: the helper's six buffers come round
  std::string const want = oracle::fizzbuzz_lines("1", lines);
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), lines, 65536);
  for (int variant = 0; variant < 3; ++variant) {
    std::optional<std::uint64_t> const limit =
        variant == 1 ? std::optional<std::uint64_t>{2999999} : std::optional<std::uint64_t>{};
    std::string const what = "variant " + std::to_string(variant);
    std::string const expected = limit ? want.substr(0, *limit) : want;
    // At idle priority it may get no CPU on a loaded machine: a few tries (each one checked).
    run_report r;
    for (int attempt = 0; attempt < 5 && (attempt == 0 || r.helper.fresh == 0); ++attempt) {
      std::string const got = through_a_forwarder(
          [&](int fd) {
            auto out = fizzgen::open_sink(fd, 65536);
            run_options o = opts(1, limit);
            o.pin = true;
            o.reuse = fizzgen::reuse_policy::never;
            o.helper = fizzgen::helper_mode::on;
            if (variant == 2) o.buffers_per_worker = 1;  // no interleaving
            r = run_guarded(g, *out, o);
          },
          100us);  // a reader slower than the worker: the helper gets ahead
      EXPECT_EQ(r.status, emit_status::ok) << r.error;
      ASSERT_EQ(oracle::first_difference(got, expected), "") << what << ", attempt " << attempt;
    }
    if (fizzgen::probe_vmsplice() != fizzgen::vmsplice_kind::shares) continue;  // a copying sink: no helper
    ASSERT_TRUE(r.helper.ran) << what;
    EXPECT_EQ(r.helper.mode, fizzgen::helper_mode::on);
    EXPECT_GT(r.helper.fresh, 0u) << what;
    EXPECT_EQ(r.helper.reused, 0u) << what << ": the helper refilled in place with --reuse never";
    EXPECT_EQ(r.helper.asked_fresh, 0u) << what;
    EXPECT_EQ(r.workers[0].reused, 0u) << what << ": the worker refilled in place with --reuse never";
    EXPECT_GT(r.workers[0].from_helper, 0u) << what;
    // Each refill of a buffer of the helper's follows a chunk of it the worker emitted, or one it
    // filled too late.
    EXPECT_LE(r.helper.fresh, r.workers[0].from_helper + r.helper.late) << what;
  }
}

TEST(Engine, YesThroughARealPipe) {
  std::vector<std::string> const words{"a", "bc"};
  fizzgen::yes const g(words, std::nullopt, 8192);
  for (unsigned t : {1u, 3u}) {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    std::string got;
    std::thread reader([&] {
      char buf[65536];
      for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;) got.append(buf, static_cast<std::size_t>(n));
    });
    {
      auto out = fizzgen::open_sink(fds[1]);
      run_report const r = run_guarded(g, *out, opts(t, std::uint64_t{3000001}));
      EXPECT_EQ(r.status, emit_status::ok) << r.error;
      EXPECT_EQ(r.bytes, 3000001u);
    }
    ::close(fds[1]);
    reader.join();
    ::close(fds[0]);
    ASSERT_EQ(oracle::first_difference(got, oracle::yes_bytes(words, 3000001)), "") << t << " threads";
  }
}

TEST(Engine, NullSinkCountsBytes) {
  std::uint64_t const lines = 20000;
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), lines, 1000);
  auto s = fizzgen::make_null_sink();
  EXPECT_EQ(s->path(), "null");
  EXPECT_FALSE(s->shares_pages());
  for (unsigned t : {1u, 4u}) {
    run_report const r = run_guarded(g, *s, opts(t));
    EXPECT_EQ(r.bytes, oracle::fizzbuzz_lines("1", lines).size());
    EXPECT_EQ(r.status, emit_status::ok);
  }
}

TEST(Engine, EmptyStream) {
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), std::uint64_t{0}, 100);
  for (unsigned t : {1u, 4u}) {
    collect_sink s;
    run_report const r = run_guarded(g, s, opts(t));
    EXPECT_TRUE(s.bytes.empty());
    EXPECT_EQ(r.bytes, 0u);
    EXPECT_EQ(r.status, emit_status::ok);
  }
}

TEST(Engine, MoreThreadsThanChunks) {
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), 20, 1 << 20);  // a chunk or two
  std::uint64_t const chunks = chunk_count(g);
  ASSERT_LT(chunks, 8u);
  for (unsigned t : {1u, 8u}) {
    collect_sink s;
    run_guarded(g, s, opts(t));
    EXPECT_EQ(oracle::first_difference(s.bytes, oracle::fizzbuzz_lines("1", 20)), "");
    EXPECT_EQ(s.calls, chunks);
  }
}

}  // namespace

namespace {

run_options never_alone(std::optional<std::uint64_t> byte_limit = std::nullopt) {
  run_options o = opts(1, byte_limit);
  o.reuse = fizzgen::reuse_policy::never;
  return o;
}

TEST(Interleave, ALoneWorkerOnFreshPagesFillsWhileThePipeDrains) {
  // Chunks of many slices, a stream start whose first chunks are short, custom rules, and a
  // window past 2^64: every byte once and in order, whatever part of each offer the pipe took.
  std::string const from = "18446744073709550616";
  oracle::rules const rs{{3, "Fizz"}, {5, "Buzz"}, {7, "Bazz"}};
  std::uint64_t const lines = 60000;
  std::string const want = oracle::fizzbuzz_lines(from, rs, lines);
  fizzbuzz const g(dec(from), {{3, "Fizz"}, {5, "Buzz"}, {7, "Bazz"}}, lines, 64 * 1024);
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    offering_sink s(seed);
    run_report const r = run_guarded(g, s, never_alone());
    ASSERT_EQ(oracle::first_difference(s.bytes, want), "") << "seed " << seed;
    EXPECT_EQ(r.bytes, want.size());
    EXPECT_EQ(r.status, emit_status::ok);
    EXPECT_TRUE(r.interleaved);
    EXPECT_GT(s.offered, 0u) << "seed " << seed;
  }
}

TEST(Interleave, ByteLimitsCutExactlyAndAGoneReaderStops) {
  std::uint64_t const lines = 40000;
  std::string const all = oracle::fizzbuzz_lines("1", lines);
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), lines, 16 * 1024);
  std::size_t const three_chunks = oracle::fizzbuzz_lines("1", lines_in_chunks(g, 3)).size();
  for (std::uint64_t limit : {std::uint64_t{1}, std::uint64_t{three_chunks - 1}, std::uint64_t{three_chunks},
                              std::uint64_t{three_chunks + 5}, std::uint64_t{all.size() - 1}}) {
    offering_sink s(limit);
    run_report const r = run_guarded(g, s, never_alone(limit));
    ASSERT_EQ(oracle::first_difference(s.bytes, all.substr(0, limit)), "") << "limit " << limit;
    EXPECT_EQ(r.bytes, limit);
    EXPECT_EQ(r.ended, fizzgen::run_end::byte_limit);
  }
  offering_sink gone(5, three_chunks + 100);
  run_report const r = run_guarded(g, gone, never_alone());
  EXPECT_EQ(r.status, emit_status::reader_gone);
  EXPECT_EQ(oracle::first_difference(gone.bytes, all.substr(0, gone.bytes.size())), "");
  EXPECT_LE(gone.bytes.size(), three_chunks + 100);
}

TEST(Interleave, OnlyALoneWorkerOnFreshPagesWithTwoBuffers) {
  fizzbuzz const g(dec("1"), fizzgen::classic_rules(), 20000, 4096);
  std::string const want = oracle::fizzbuzz_lines("1", 20000);
  struct variant {
    char const* what;
    run_options o;
    bool interleaved;
  };
  run_options always = never_alone();
  always.reuse = fizzgen::reuse_policy::always;
  run_options two_threads = never_alone();
  two_threads.threads = 2;
  run_options one_buffer = never_alone();
  one_buffer.buffers_per_worker = 1;
  run_options paced = never_alone();
  paced.rate = 1ull << 40;
  for (variant const& v : {variant{"never, one worker", never_alone(), true}, variant{"always", always, false},
                           variant{"two workers", two_threads, false}, variant{"one buffer", one_buffer, false},
                           variant{"paced", paced, false}}) {
    offering_sink s(11);
    run_report const r = run_guarded(g, s, v.o);
    EXPECT_EQ(oracle::first_difference(s.bytes, want), "") << v.what;
    EXPECT_EQ(r.interleaved, v.interleaved) << v.what;
    EXPECT_EQ(s.offered > 0, v.interleaved) << v.what;
  }
}

}  // namespace
