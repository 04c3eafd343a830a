#include "engine/run.hpp"

#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <system_error>
#include <thread>

#include "engine/buffer.hpp"
#include "engine/cpus.hpp"
#include "engine/pacer.hpp"
#include "engine/sizing.hpp"
#include "engine/spin.hpp"

namespace fizzgen {

std::string_view to_string(reuse_policy p) noexcept {
  switch (p) {
    case reuse_policy::never:
      return "never";
    case reuse_policy::always:
      return "always";
    case reuse_policy::automatic:
      return "auto";
  }
  return "?";
}

std::string_view to_string(run_end e) noexcept {
  switch (e) {
    case run_end::finished:
      return "end of stream";
    case run_end::byte_limit:
      return "byte limit";
    case run_end::duration:
      return "duration";
    case run_end::stopped:
      return "signal";
    case run_end::reader_gone:
      return "reader gone";
    case run_end::failed:
      return "failed";
  }
  return "?";
}

namespace {

using clock_type = std::chrono::steady_clock;

double seconds_between(clock_type::time_point a, clock_type::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

/// The turn: the index (mod 2^32) of the next chunk to emit. Only equality is ever tested and at
/// most T chunks wait at once, so 32 bits never alias; a 32-bit word lets waiters sleep on a futex.
struct alignas(64) turn_word {
  std::atomic<std::uint32_t> next{0};
};
static_assert(sizeof(turn_word) == 64);

/// Pipe slots emitted so far, published by each turn holder after its emit.
struct alignas(64) slot_counter {
  std::atomic<std::uint64_t> emitted{0};
};
static_assert(sizeof(slot_counter) == 64);

/// Moving the turn this far away wakes every waiter without handing the turn to any of them.
constexpr std::uint32_t kStopOffset = 0x8000'0000u;

/// One buffer (a part of a mapping: a ring's or its own) and what the worker knows about its contents.
struct slot_buffer {
  slot_buffer(buffer& in, std::size_t at, std::size_t capacity)
      : mapping(&in), offset(at), memory(in.data() + at, capacity) {}
  buffer* mapping;
  std::size_t offset;  ///< where memory starts in *mapping
  std::span<std::byte> memory;
  bool fresh = false;             ///< given fresh pages since its last emit, with another buffer of its huge page
  std::uint64_t lines = 0;        ///< lines of the chunk it holds, 0: never filled
  std::size_t bytes = 0;          ///< bytes of that chunk
  bool referenced = false;        ///< handed to the kernel by reference (vmsplice)
  std::uint64_t slots_after = 0;  ///< pipe slots emitted up to and including this buffer
  std::uint64_t verdict = 0;      ///< reuse_monitor state when it was emitted
  std::size_t sent = 0;           ///< bytes of the chunk offered to the pipe ahead of its emit
};

class pipeline {
 public:
  pipeline(generator const& gen, sink& out, run_options const& options)
      : gen_(gen),
        out_(out),
        options_(options),
        n_buffers_(buffers_per_worker()),
        online_cpus_(std::max<unsigned>(1, static_cast<unsigned>(allowed_cpus().size()))),
        pacer_(options.rate, options.duration, gen.chunk_capacity(), options.pauses),
        pattern_(options.write_sizes) {
    if (pattern_) carry_.reserve(pattern_->largest());
  }

  run_report run() {
    run_report report;
    report.threads = options_.threads;
    report.buffers_per_worker = n_buffers_;
    report.workers.resize(options_.threads);
    auto const start = clock_type::now();
    pacer_.start(start);
    if (!options_.byte_limit || *options_.byte_limit > 0) {
      // Declared before the workers, so it is unregistered only after they have been joined.
      std::stop_callback const on_stop(options_.stop, [this] {
        stopped_.store(true, std::memory_order_relaxed);
        wake_all();
      });
      // While the pipe is full the turn holder re-checks the readers for the refill that follows
      // its emit (its own next chunk goes where chunk next - T*buffers was), when that buffer has
      // left the pipe and no re-check vouches for it yet: time it would spend waiting for room.
      if (reuse_monitor* const m = options_.monitor; m != nullptr && !gen_.constant()) {
        last_slots_.assign(static_cast<std::size_t>(n_buffers_) * options_.threads, 0);
        out_.while_full([this, m, pipe_slots = out_.pipe_size() / 4096] {
          std::uint64_t const ring = last_slots_.size();
          std::uint64_t const next = emitting_ + options_.threads;
          if (next < ring) return;
          std::uint64_t const last = last_slots_[(next - ring) % ring];
          if (out_.slots() >= last + pipe_slots) m->vouch_ahead(last);  // a full pipe's worth after it
        });
      }
      std::vector<int> const cpus = options_.pin ? allowed_cpus() : std::vector<int>{};
      // Declared before the workers: joined after them.
      std::jthread helper;
      if (helped() && cpus.size() > options_.threads) {
        try {
          helper_count_ = options_.reuse == reuse_policy::automatic ? kHelperBuffersAuto : kHelperBuffers;
          helper_tags_ = std::make_unique<std::atomic<std::uint64_t>[]>(helper_count_);
          report.helper.mode = options_.helper;
          report.helper.buffers = helper_count_;
          helper = std::jthread([this, cpu = cpus[options_.threads], &report, &cpus](std::stop_token st) {
            helper_stats& hs = report.helper;
            if (pin_current_thread(cpu)) hs.cpu = cpu;
            // Its buffers are mapped and every page faulted in before it goes idle: at idle
            // priority it avoids the address space's lock (mmap, page faults, madvise), which a
            // starved idle thread would hold against the worker's vmsplice and faults (seen: a
            // worker stalled for seconds beside a busy CPU). So under --reuse auto it asks the
            // worker for fresh pages (help()). Under --reuse never, where every refill is on
            // fresh pages, it takes them itself: zeroing them is the most of a refill's cost, and
            // done on the CPU that then fills them, their bytes never cross to the other core.
            try {
              for (std::size_t i = 0; i < helper_count_; ++i) {
                buffer& m = helper_memory_[i].emplace(gen_.chunk_capacity());
                m.fault_in();
                helper_buffers_[i].emplace(m, 0, gen_.chunk_capacity());
              }
            } catch (std::exception const&) {  // no memory for it: the worker works alone
              return;
            }
            idle_current_thread();
            // The run ending before this thread got that far: it must not stay idle (see below).
            if (helper_ending_.load()) release_thread(pthread_self(), cpus);
            hs.ran = true;
            try {
              help(st, hs);
            } catch (std::exception const&) {  // the worker fills every chunk itself
            }
          });
        } catch (std::exception const&) {  // no memory or no thread for it: the worker works alone
          helper_tags_.reset();
        }
      }
      std::vector<std::jthread> workers;
      for (unsigned w = 0; w < options_.threads; ++w) {
        try {
          workers.emplace_back([this, w, &cpus, &report] {
            worker_stats& stats = report.workers[w];
            try {
              if (!cpus.empty() && pin_current_thread(cpus[w % cpus.size()])) {
                stats.cpu = cpus[w % cpus.size()];
                pinned_.fetch_add(1, std::memory_order_relaxed);
              }
              work(w, stats);
            } catch (std::exception const& e) {
              abort_with(e.what());
            }
          });
        } catch (std::system_error const& e) {  // EAGAIN: the thread or process limit, or no memory for a stack
          abort_with("cannot start thread " + std::to_string(w + 1) + " of " + std::to_string(options_.threads) + ": " +
                     std::strerror(e.code().value()));
          break;  // the workers started so far see the stop and are joined here
        }
      }
      for (std::jthread& t : workers) t.join();
      if (helper.joinable()) {
        // At SCHED_IDLE, pinned to a CPU that something else keeps busy, the helper could wait
        // seconds for a moment to see the stop (and the run for it): give it a normal share of
        // every allowed CPU first. seq_cst with its own check after going idle: one of the two
        // releases it.
        helper_ending_.store(true);
        release_thread(helper.native_handle(), cpus);
      }
      helper_on_.store(kHelperStop, std::memory_order_relaxed);
      helper_on_.notify_all();
      report.helper.windows = probe_.windows();
      report.helper.windows_helped = probe_.windows_helped();
      report.helper.window_chunks = probe_.window_chunks();
    }
    out_.while_full(nullptr);
    report.seconds = seconds_between(start, clock_type::now());
    // The workers have been joined: everything they wrote is visible here.
    report.bytes = bytes_;
    report.status = status_;
    report.error = error_;
    if (!abort_error_.empty() && status_ == emit_status::ok) {
      report.status = emit_status::failed;
      report.error = abort_error_;
    }
    report.pinned = pinned_.load(std::memory_order_relaxed);
    report.stopped = stopped_.load(std::memory_order_relaxed);
    report.huge_pages_kb = huge_kb_;
    report.interleaved = interleaved_;
    report.pace_piece_bytes = pacer_.piece_bytes();
    report.stalls = pacer_.stalls();
    report.silences = pacer_.silences();
    report.ended = report.status == emit_status::failed        ? run_end::failed
                   : report.status == emit_status::reader_gone ? run_end::reader_gone
                   : pacer_.timed_out()                        ? run_end::duration
                   : limit_reached_                            ? run_end::byte_limit
                   : report.stopped                            ? run_end::stopped
                                                               : run_end::finished;
    return report;
  }

 private:
  /// The caller's count, or enough that the chunks emitted after a buffer fill the pipe
  /// (engine/sizing.hpp); chunks often run short of their capacity.
  unsigned buffers_per_worker() const {
    if (options_.buffers_per_worker != 0) return options_.buffers_per_worker;
    return ring_buffers(std::max<std::size_t>(out_.pipe_size(), 65536),
                        std::max<std::size_t>(gen_.chunk_capacity() / 2, 4096), options_.threads);
  }

  /// taint::none when the pages of a buffer that was vmspliced may be written again; otherwise
  /// why not.
  taint may_rewrite(slot_buffer const& b, bool may_recheck = true) const {
    if (!b.referenced) return taint::none;
    if (options_.reuse == reuse_policy::never) return taint::count;  // not a taint: the policy
    // The pipe holds at least the slots granted at open: until a pipe's worth more went in, b is
    // still in it. No system call here: the helper asks in a loop, and asking the pipe its size
    // takes the lock the reader's splice and the worker's vmsplice wait for (sink::slots_gone();
    // measured into pv -S: 42000 such calls per 16 GiB, and 0.92x the time without them).
    std::size_t const granted = out_.pipe_size() / 4096;
    if (granted == 0 || slots_.emitted.load(std::memory_order_acquire) < b.slots_after + granted) return taint::in_pipe;
    if (options_.reuse == reuse_policy::always)  // unless a reader grew the pipe since
      return out_.slots_gone() >= b.slots_after ? taint::none : taint::in_pipe;
    // auto: emitted during an epoch that still lasts, and a re-check of it begun after the
    // buffer left the pipe found it intact (docs/reuse-soundness.md); the re-check asks the pipe
    // its size.
    reuse_monitor* const m = options_.monitor;
    if (m == nullptr) return taint::no_reader;
    if (!reuse_monitor::safe(b.verdict)) return reuse_monitor::reason(b.verdict);
    if (m->state() != b.verdict)
      return reuse_monitor::safe(m->state()) ? m->last_break() : reuse_monitor::reason(m->state());
    if (may_recheck ? m->vouch(b.slots_after) : m->vouched(b.slots_after)) return taint::none;
    return reuse_monitor::safe(m->state()) ? taint::in_pipe : reuse_monitor::reason(m->state());
  }

  /// Makes a buffer that was handed to the pipe ready for its refill: in place when `why` is
  /// taint::none, else on fresh pages, counted in the worker's `stats` by reason. `ring`: the
  /// worker's buffers, which may share b's huge pages (ring_layout), or empty.
  static void ready_for_refill(slot_buffer& b, taint why, worker_stats& stats, std::span<slot_buffer> ring = {}) {
    if (why == taint::none && !b.fresh) {
      ++stats.reused;
    } else {
      // Never rewrite pages the kernel may still hold: without fresh pages the run stops. Only
      // the huge pages the chunk's bytes were in: the pipe holds no other (measured with --reuse
      // never, 4 MiB chunks whose scratch starts a third huge page: 1.29x faster).
      if (!b.fresh && !give_fresh_pages(b, ring)) throw std::runtime_error("madvise(MADV_DONTNEED) failed");
      ++stats.discarded;
      if (why != taint::count && why != taint::none) ++stats.discarded_because[static_cast<std::size_t>(why)];
    }
    b.referenced = false;
    b.fresh = false;
  }

  /// Gives b fresh pages: the huge pages its chunk's bytes are in, whole, and so every buffer of
  /// `ring` that lies in them; only b's own pages (splitting a huge page) when another buffer there
  /// holds a chunk not yet emitted, whose bytes would be lost.
  static bool give_fresh_pages(slot_buffer& b, std::span<slot_buffer> ring) {
    std::size_t const hp = buffer::kHugePage;
    std::size_t const lo = b.offset / hp * hp;
    std::size_t const hi = (b.offset + std::max<std::size_t>(b.bytes, 1) + hp - 1) / hp * hp;
    auto const shares = [&](slot_buffer const& o) {
      return &o != &b && o.mapping == b.mapping && o.offset < hi && o.offset + o.memory.size() > lo;
    };
    bool const whole = std::none_of(ring.begin(), ring.end(), [&](slot_buffer const& o) {
      return shares(o) && (o.lines != 0 && !o.referenced);  // filled, not emitted yet
    });
    if (!whole) {
      std::size_t const end = (b.offset + b.bytes + 4095) / 4096 * 4096;
      return b.mapping->discard_range(b.offset, end - b.offset);
    }
    if (!b.mapping->discard_range(lo, hi - lo)) return false;
    for (slot_buffer& o : ring)
      if (shares(o) && o.offset >= lo && o.offset + o.memory.size() <= hi && o.referenced) o.fresh = true;
    return true;
  }

  /// Whether a helper on the reader's CPU fills chunks ahead for the lone worker: into a pipe the
  /// worker vmsplices, with a CPU this process may use that no worker has (the reader's), and
  /// chunks that differ; not with a pacer or a write pattern, which decide themselves when bytes
  /// go out.
  bool helped() const noexcept {
    return options_.helper != helper_mode::off && options_.threads == 1 && online_cpus_ >= 2 && !options_.alone &&
           options_.pin && out_.shares_pages() && out_.pipe_size() > 0 && !gen_.constant() && !options_.pipe_only &&
           !pattern_ && !pacer_.active();
  }

  // A helper buffer's tag: (chunk index + 1) << 2 | phase. The helper claims a chunk (filling)
  // only ahead of the worker and publishes it (ready); the worker decides every chunk it reaches
  // (taken): it emits the helper's buffer when that is ready, and otherwise fills the chunk
  // itself, even while the helper is at it (whose publish then fails). Compare-and-swap on the tag
  // makes each decision once.
  enum : std::uint64_t { kFilling = 0, kReady = 1, kTaken = 2 };
  static std::uint64_t tag_of(std::uint64_t index, std::uint64_t phase) noexcept { return (index + 1) << 2 | phase; }
  static std::uint64_t tag_phase(std::uint64_t tag) noexcept { return tag & 3; }
  static std::uint64_t tag_index(std::uint64_t tag) noexcept { return (tag >> 2) - 1; }  // tag != 0

  /// The helper's buffer holding chunk `index`, when the helper published it; otherwise nullptr,
  /// and the helper can no longer publish it (if it is filling that chunk now, its work is lost:
  /// the worker never waits for it). Called by the worker once per chunk, in order.
  slot_buffer* take_helped(std::uint64_t index) noexcept {
    std::atomic<std::uint64_t>& tag = helper_tags_[index % helper_count_];
    std::uint64_t t = tag.load(std::memory_order_acquire);  // pairs with the helper's publish
    for (;;) {
      if (t == tag_of(index, kReady)) return &*helper_buffers_[index % helper_count_];
      if (tag.compare_exchange_weak(t, tag_of(index, kTaken), std::memory_order_acq_rel, std::memory_order_acquire))
        return nullptr;
    }
  }

  /// The helper's buffer that it asked fresh pages for, if any: a refill in place the worker's own
  /// re-check now allows, or fresh pages faulted in on this thread. Not while a reader could
  /// forward (or none is watched): the worker zeroing the helper's pages as well as its own took
  /// 1.13x the time into pv | pv. Then the helper keeps waiting, until an epoch opens.
  void give_helper_fresh_pages(worker_stats& stats) {
    std::uint32_t const asked = helper_fresh_.load(std::memory_order_acquire);  // pairs with the helper's release
    if (asked == 0) return;
    slot_buffer& b = *helper_buffers_[asked - 1];
    reuse_monitor* const m = options_.monitor;
    taint const why = may_rewrite(b);
    if (why == taint::in_pipe) return;
    if (why != taint::none) {
      if (m == nullptr || !(reuse_monitor::safe(m->state()) || reuse_monitor::reason(m->state()) == taint::not_yet))
        return;
      ready_for_refill(b, why, stats);
      b.mapping->fault_in(b.mapping->discard_extent(b.bytes));
      ++stats.helper_fresh;
    }
    helper_fresh_.store(0, std::memory_order_release);  // the helper reads b after this
  }

  /// The helper: fills chunks ahead of the worker (never more than its buffers ahead, never the
  /// chunk the worker is at) into its own buffers, on the reader's CPU at SCHED_IDLE, so the
  /// reader takes the CPU whenever it can run. It never holds a lock the worker takes.
  void help(std::stop_token const& st, helper_stats& hs) {
    std::uint64_t const n = helper_count_;
    std::uint64_t target = 1;
    unsigned idle = 0;  // pauses since the last chunk claimed
    // Spins first (the worker moves on within microseconds), then sleeps from 20 us up to 1 ms
    // (a slow reader: nothing to do for long, and this CPU is the reader's).
    auto const pause = [&] {
      if (++idle < 512) {
        cpu_relax();
      } else {
        std::this_thread::sleep_for(std::chrono::microseconds(std::min(20u << std::min((idle - 512) / 64, 6u), 1000u)));
      }
    };
    while (!st.stop_requested() && !stop_.load(std::memory_order_relaxed)) {
      std::uint32_t const on = helper_on_.load(std::memory_order_relaxed);
      if (on == kHelperStop) break;
      if (on == 0) {  // the worker measured the stream faster without us, for now
        helper_on_.wait(0, std::memory_order_relaxed);
        continue;
      }
      std::uint64_t const next = worker_next_.load(std::memory_order_acquire);
      target = std::max(target, next + kHelperLead);
      if (target >= next + n) {  // its buffer may hold a chunk the worker has yet to reach
        pause();
        continue;
      }
      std::size_t const h = target % n;
      slot_buffer& b = *helper_buffers_[h];
      std::uint64_t tag = helper_tags_[h].load(std::memory_order_acquire);  // pairs with the worker's release
      if (tag != 0 && tag_index(tag) >= target) {                           // the worker decided it already
        ++target;
        continue;
      }
      if (tag != 0 && tag_phase(tag) != kTaken) {  // a chunk of ours the worker has not reached
        pause();
        continue;
      }
      // Acquire: pairs with the worker's release once it gave the buffer asked for fresh pages.
      std::uint32_t const asked = helper_fresh_.load(std::memory_order_acquire);
      if (asked == h + 1) {  // the worker's, until it has given it fresh pages: not even to be read
        pause();
        continue;
      }
      if (b.referenced) {
        taint const why = may_rewrite(b, false);
        if (why == taint::in_pipe) {  // in our pipe, or left it with no re-check for it yet: both pass
          pause();
          continue;
        }
        if (why == taint::count) {              // --reuse never: fresh pages, taken here (see run())
          if (!give_fresh_pages(b, {})) break;  // the worker fills every chunk itself
          ++hs.fresh;
        } else if (why == taint::none) {
          ++hs.reused;
        } else {
          // Only fresh pages would do, which this thread avoids taking at idle priority (see
          // run()): it asks the worker for them (one buffer at a time) and waits.
          if (asked == 0) {
            ++hs.asked_fresh;
            helper_fresh_.store(static_cast<std::uint32_t>(h + 1), std::memory_order_release);
          }
          pause();
          continue;
        }
        b.referenced = false;
      }
      idle = 0;
      if (!helper_tags_[h].compare_exchange_strong(tag, tag_of(target, kFilling), std::memory_order_acq_rel))
        continue;  // the worker reached it first
      std::optional<chunk> const c = gen_.plan(target);
      if (!c) break;
      auto const t0 = clock_type::now();
      b.bytes = gen_.fill(*c, b.memory);
      b.lines = c->lines;
      b.sent = 0;
      hs.fill_seconds += seconds_between(t0, clock_type::now());
      std::uint64_t expected = tag_of(target, kFilling);
      // Release: the worker that takes it reads the bytes and b's fields.
      if (helper_tags_[h].compare_exchange_strong(expected, tag_of(target, kReady), std::memory_order_release,
                                                  std::memory_order_relaxed))
        ++hs.filled;
      else
        ++hs.late;
      ++target;
    }
  }

  void work(unsigned w, worker_stats& stats) {
    // Packed where every refill rewrites a buffer and fresh pages are the exception (--reuse auto
    // behind a reader that could forward): not where buffers keep their bytes (yes, --pipe-only),
    // nor for --reuse never, whose chunks span huge pages.
    ring_layout const layout(gen_.chunk_capacity(), n_buffers_,
                             !gen_.constant() && !options_.pipe_only && options_.reuse != reuse_policy::never);
    std::optional<buffer> ring_memory;
    std::vector<slot_buffer> buffers;
    try {
      ring_memory.emplace(layout.bytes);
      buffers.reserve(n_buffers_);
      for (unsigned b = 0; b < n_buffers_; ++b)
        buffers.emplace_back(*ring_memory, layout.offset(b), gen_.chunk_capacity());
    } catch (std::bad_alloc const&) {  // mmap refused: ulimit -v, overcommit, a cgroup limit
      std::size_t const mapped = (layout.bytes + buffer::kHugePage - 1) / buffer::kHugePage * buffer::kHugePage;
      std::size_t const mib = ((mapped + n_buffers_ - 1) / n_buffers_ + (1u << 20) - 1) >> 20;  // each, rounded up
      throw std::runtime_error("cannot allocate " + std::to_string(n_buffers_) +
                               (n_buffers_ == 1 ? " buffer" : " buffers") + " of " + std::to_string(mib) +
                               " MiB: " + std::strerror(ENOMEM));
    }
    bool const constant = gen_.constant();
    // Spinning for the turn pays when every worker has a core and one is left for the reader (or
    // nothing else needs one: 2 workers on 2 CPUs generating alone ran at 1.83-2.03x of one
    // spinning, 1.63-1.70x sleeping); otherwise it steals the CPU of the turn holder or of the
    // reader, so waiters sleep almost at once.
    bool const own_cpus = options_.threads < online_cpus_ || (options_.alone && options_.threads <= online_cpus_);
    spin_policy const spin(own_cpus ? 1u << 14 : 16u);
    bool const interleave = interleaved();
    if (interleave && w == 0) interleaved_ = true;
    slot_buffer* pending = nullptr;  // interleave: the chunk before, offered to the pipe, not yet emitted
    if (helper_tags_) {              // only with one worker
      // Idle CPUs polling: the helper starts at rest and works only where it measures faster
      // (engine/helper_probe.hpp); not under --reuse never, where it zeroes the fresh pages.
      bool const alone_first = options_.idle_polling && options_.reuse != reuse_policy::never;
      probe_ = helper_probe(
          options_.helper, options_.chunk_bytes >> 20,
          options_.reuse == reuse_policy::never ? helper_probe::kFreshPagesMargin : helper_probe::kMargin, alone_first);
      set_helping(probe_.helping());
    }
    // The worker is done with a buffer of the helper's once its chunk is in the pipe: the helper
    // may refill it (release: it reads the fields the emit wrote).
    auto const hand_back = [&](std::uint64_t index, bool helped) {
      if (helped) helper_tags_[index % helper_count_].store(tag_of(index, kTaken), std::memory_order_release);
    };
    bool pending_helped = false;  // interleave: whether the pending chunk is in a buffer of the helper's
    // The chunk being emitted when the run ends goes out whole, as without interleaving.
    auto const finish_pending = [&](std::uint64_t index) {
      if (pending == nullptr || !status_ok()) return;
      auto const t2 = clock_type::now();
      (void)emit_chunk(index, *pending, stats);
      stats.emit_seconds += seconds_between(t2, clock_type::now());
    };
    for (std::uint64_t k = 0;; ++k) {
      std::uint64_t const index = w + k * options_.threads;
      if (stop_.load(std::memory_order_relaxed)) return finish_pending(index - 1);
      std::optional<chunk> const c = gen_.plan(index);
      if (!c) return finish_pending(index - 1);
      auto t0 = clock_type::now();
      slot_buffer* helped_buffer = nullptr;
      if (helper_tags_) {
        give_helper_fresh_pages(stats);
        worker_next_.store(index, std::memory_order_release);  // pairs with the helper's acquire
        helped_buffer = take_helped(index);
        auto const taken = clock_type::now();
        stats.wait_seconds += seconds_between(t0, taken);
        t0 = taken;
        if (helped_buffer != nullptr) ++stats.from_helper;
      }
      slot_buffer& b = helped_buffer != nullptr ? *helped_buffer : buffers[k % n_buffers_];
      // A constant generator's buffer already holds the bytes to emit, and so does any buffer in
      // pipe-only mode once it holds a full-sized chunk (the first chunks of a stream are short);
      // anything else is refilled, on fresh pages unless it provably left the pipe.
      bool const keep =
          helped_buffer != nullptr || (b.lines != 0 && ((options_.pipe_only && 4 * b.bytes >= gen_.chunk_capacity()) ||
                                                        (constant && b.lines == c->lines)));
      if (!keep) {
        if (b.referenced) ready_for_refill(b, may_rewrite(b), stats, buffers);
        b.bytes = interleave ? fill_offering(*c, b, pending) : gen_.fill(*c, b.memory);
        b.lines = c->lines;
        if (w == 0 && k == 0) huge_kb_ = anon_huge_kb();  // the first chunk is in place: did THP back it?
      }
      auto const t1 = clock_type::now();

      auto const mine = static_cast<std::uint32_t>(index);
      stats.wait_retries +=
          spin.wait(turn_.next, [&](std::uint32_t v) { return v == mine || stop_.load(std::memory_order_relaxed); });
      // Acquire pairs with the release store of the thread that set stop_ before moving the turn.
      if (turn_.next.load(std::memory_order_acquire) != mine || stop_.load(std::memory_order_relaxed))
        return finish_pending(index - 1);
      auto const t2 = clock_type::now();

      bool done = false;
      if (!interleave) {
        done = emit_chunk(index, b, stats);
        hand_back(index, helped_buffer != nullptr);
      } else {
        if (pending != nullptr) {
          done = emit_chunk(index - 1, *pending, stats);
          hand_back(index - 1, pending_helped);
        }
        if (!done) offer(b);
        pending = &b;
        pending_helped = helped_buffer != nullptr;
      }
      if (helper_tags_ && probe_.chunk_done(std::chrono::duration<double>(clock_type::now().time_since_epoch()).count(),
                                            helped_buffer != nullptr)) {
        set_helping(probe_.helping());
      }
      if (done) {
        stop_.store(true, std::memory_order_relaxed);
        turn_.next.store(mine + kStopOffset, std::memory_order_release);  // pairs with the waiters' acquire
      } else {
        // An add, not a store: a stop that wake_all() added meanwhile stays in the word, and the
        // read-modify-write keeps its release sequence, so a waiter that reads this value also
        // sees stop_ (a plain store could hide both and leave a waiter asleep on this value).
        turn_.next.fetch_add(1, std::memory_order_release);  // pairs with the next holder's acquire
      }
      turn_.next.notify_all();
      auto const t3 = clock_type::now();

      stats.fill_seconds += seconds_between(t0, t1);
      stats.wait_seconds += seconds_between(t1, t2);
      stats.emit_seconds += seconds_between(t2, t3);
      if (done) return;
    }
  }

  /// Sets the helper to work or to rest. While it works, the worker polls a full pipe long before
  /// it sleeps (sink::poll_long), as it did before the sink bounded its polls to 20 us: the helper
  /// works on only where its timed windows come out faster (engine/helper_probe.hpp), and with the
  /// bound they did so by chance more often. 2-CPU Intel Xeon VM, 16 GiB into pv -S, each run
  /// after another writer's (as the anchors' script takes turns): the probe chose the helper in
  /// 2-5 of 8 runs, which then ran at 25-27 GiB/s against 30-32 (--helper on throughout: 25.8
  /// with the bound, 22.8 with long polls; the worker alone 31.7).
  void set_helping(bool on) {
    out_.poll_long(on);
    helper_on_.store(on ? 1 : 0, std::memory_order_relaxed);
    helper_on_.notify_all();
  }

  /// Emits chunk `index` from b: the caller holds the turn (or is the emitting thread), so bytes_,
  /// status_ and error_ are its own. True when the run ends with it.
  bool emit_chunk(std::uint64_t index, slot_buffer& b, worker_stats& stats) {
    // This thread holds the turn: bytes_, status_ and error_ are ours until we pass it on.
    // The epoch is read before the emit: a buffer may be vouched for only by an epoch whose
    // scan had ended before any of its pages entered the pipe.
    std::uint64_t const verdict = options_.monitor != nullptr ? options_.monitor->state() : 0;
    std::size_t size = emit_size(b);
    emit_status status = emit_status::ok;
    bool cut_short = false;  // the deadline passed or a stop came while pacing
    std::size_t written = size;
    emitting_ = index;
    if (pattern_) {
      bool const last = (options_.byte_limit && taken() + size >= *options_.byte_limit) || !gen_.plan(index + 1);
      written = emit_cut(b, size, last, status, cut_short);
    } else if (!pacer_.active()) {
      status = out_.emit({b.memory.data() + b.sent, size - b.sent});  // sent: offered ahead
    } else {
      size = written = emit_paced(b, size, status, cut_short);
    }
    if (status == emit_status::ok) bytes_ += written;  // a failed emit's partial count is unknown
    if (options_.progress != nullptr && status == emit_status::ok) publish_progress(b, size);
    b.referenced = b.referenced || out_.shares_pages();
    b.slots_after = out_.slots();
    b.verdict = verdict;
    if (!last_slots_.empty()) last_slots_[index % last_slots_.size()] = b.slots_after;
    slots_.emitted.store(b.slots_after, std::memory_order_release);  // pairs with may_rewrite's acquire
    limit_reached_ = options_.byte_limit && bytes_ >= *options_.byte_limit;
    bool const done = status != emit_status::ok || limit_reached_ || cut_short;
    if (done) {
      status_ = status;
      error_ = out_.error();
    }
    b.sent = 0;
    stats.chunks += 1;
    stats.bytes += written;
    return done;
  }

  /// Held with the turn: no emit has failed and no limit was reached, so a pending chunk may go out.
  bool status_ok() const noexcept { return status_ == emit_status::ok && !limit_reached_; }

  /// Whether the lone worker fills each chunk in slices and offers the pipe more of the chunk
  /// before between them. On fresh pages for every refill (--reuse never) a fill, the kernel
  /// zeroing the pages and then the generator, lasts longer than the reader takes to drain a full
  /// pipe: emitting after the fill, the worker waited for room while the reader idled (16 GiB into
  /// pv, 4 MiB chunks, 1 MiB pipe: fill 0.47 s, emit 0.36 s). Several workers keep the pipe fed
  /// by taking turns; a pacer or a write pattern decides itself when bytes go out; with one buffer
  /// the chunk offered would be the one refilled.
  bool interleaved() const noexcept {
    return options_.threads == 1 && n_buffers_ >= 2 && options_.reuse == reuse_policy::never && out_.shares_pages() &&
           out_.pipe_size() > 0 && !gen_.constant() && !options_.pipe_only && !pattern_ && !pacer_.active();
  }

  /// The bytes the stream has given out so far: emitted, and those of a cut piece held back to be
  /// completed from the next chunk (carry_).
  std::uint64_t taken() const noexcept { return bytes_ + carry_.size(); }

  /// The bytes of b's chunk the emit will send: all, or up to the byte limit.
  std::size_t emit_size(slot_buffer const& b) const noexcept {
    if (!options_.byte_limit) return b.bytes;
    return static_cast<std::size_t>(std::min<std::uint64_t>(b.bytes, *options_.byte_limit - taken()));
  }

  /// Offers the pipe what it takes now of b's chunk, without waiting.
  void offer(slot_buffer& b) noexcept {
    std::size_t const size = emit_size(b);
    if (b.sent < size) b.sent += out_.offer({b.memory.data() + b.sent, size - b.sent});
  }

  /// Fills b with chunk c in slices, offering the pipe more of `pending` after each. A slice is
  /// about a sixth of the pipe at most (a chunk's capacity over-counts its bytes), so the pipe is
  /// offered more before the reader can have drained it (16 and 32 slices of 4 MiB chunks into a
  /// 1 MiB pipe measured alike; 64 slower).
  std::size_t fill_offering(chunk const& c, slot_buffer& b, slot_buffer* pending) noexcept {
    std::size_t const slice_bytes = std::max<std::size_t>(out_.pipe_size() / 6, 4096);
    std::uint64_t const slices = std::clamp<std::uint64_t>(gen_.chunk_capacity() / slice_bytes, 1, 48);
    std::uint64_t const step = std::max<std::uint64_t>(1, (c.lines + slices - 1) / slices);
    std::size_t bytes = 0;
    for (std::uint64_t done = 0; done < c.lines; done += step) {
      chunk const slice{c.index, c.first_line + done, std::min(step, c.lines - done)};
      bytes += gen_.fill_at(slice, b.memory, bytes);
      if (pending != nullptr) offer(*pending);
    }
    return bytes;
  }

  /// Emits the first `size` bytes of b in the pacer's pieces, each when the rate allows it; the
  /// bytes emitted. `cut_short` when the deadline or a stop came first, `status` when an emit failed.
  std::size_t emit_paced(slot_buffer const& b, std::size_t size, emit_status& status, bool& cut_short) {
    auto const stopped = [this] { return stop_.load(std::memory_order_relaxed); };
    std::size_t sent = 0;
    while (sent < size) {
      std::size_t const n = pacer_.next_piece(size - sent);
      if (!pacer_.wait(n, stopped)) {
        cut_short = true;
        break;
      }
      status = out_.emit({b.memory.data() + sent, n});
      if (status != emit_status::ok) break;
      sent += n;
    }
    return sent;
  }

  /// Emits the first `size` bytes of b cut into the pattern's sizes, paced when a rate is set: first
  /// the piece carried over from the previous chunk, completed from this one; a piece this chunk
  /// cannot complete is carried to the next unless `last`, which emits it short. The bytes emitted.
  std::size_t emit_cut(slot_buffer const& b, std::size_t size, bool last, emit_status& status, bool& cut_short) {
    auto const stopped = [this] { return stop_.load(std::memory_order_relaxed); };
    std::size_t written = 0;
    auto const put = [&](std::byte const* data, std::size_t n) {
      if (pacer_.active() && !pacer_.wait(n, stopped)) {
        cut_short = true;
        return false;
      }
      status = out_.emit({data, n});
      if (status != emit_status::ok) return false;
      written += n;
      return true;
    };
    std::byte const* p = b.memory.data();
    std::byte const* const end = p + size;
    if (!carry_.empty()) {
      std::size_t const take = std::min(want_ - carry_.size(), static_cast<std::size_t>(end - p));
      carry_.insert(carry_.end(), p, p + take);
      p += take;
      if (carry_.size() < want_ && !last) return written;
      bool const ok = put(carry_.data(), carry_.size());
      carry_.clear();
      if (!ok) return written;
    }
    while (p != end) {
      want_ = pattern_->next();
      std::size_t const n = std::min(want_, static_cast<std::size_t>(end - p));
      if (n < want_ && !last) {
        carry_.assign(p, end);
        return written;
      }
      if (!put(p, n)) return written;
      p += n;
    }
    return written;
  }

  /// Adds an emitted chunk (or the first `size` bytes of it) to the progress counter: relaxed,
  /// since the display only needs the totals to grow; newlines are counted only in a cut chunk.
  void publish_progress(slot_buffer const& b, std::size_t size) const noexcept {
    std::uint64_t lines = b.lines;
    if (size < b.bytes) {
      auto const* p = reinterpret_cast<char const*>(b.memory.data());
      lines = static_cast<std::uint64_t>(std::count(p, p + size, '\n'));
    }
    options_.progress->bytes.fetch_add(size, std::memory_order_relaxed);
    options_.progress->lines.fetch_add(lines, std::memory_order_relaxed);
    options_.progress->stalls.store(pacer_.stalls(), std::memory_order_relaxed);
  }

  /// Stops every worker after an error outside the turn (allocation failure).
  void abort_with(std::string const& what) {
    std::lock_guard lock(abort_mutex_);
    if (abort_error_.empty()) abort_error_ = what;
    wake_all();
  }

  /// Makes every worker stop: waiters wake and see stop_, the turn holder sees it after its emit.
  /// Only the first stop adds the offset: two would cancel out, and a waiter woken by the first
  /// would find its old value back and sleep on (a failed thread start and a worker's failed
  /// allocation both stopping the run hung it so, about one run in five under a small ulimit -v).
  void wake_all() {
    if (!stop_.exchange(true, std::memory_order_relaxed))
      turn_.next.fetch_add(kStopOffset, std::memory_order_release);  // pairs with the waiters' acquire
    turn_.next.notify_all();
  }

  generator const& gen_;
  sink& out_;
  run_options const& options_;
  unsigned const n_buffers_;
  unsigned const online_cpus_;  ///< CPUs this process may run on
  turn_word turn_;
  slot_counter slots_;
  alignas(64) std::atomic<bool> stop_{false};
  std::atomic<unsigned> pinned_{0};
  std::atomic<bool> stopped_{false};
  std::mutex abort_mutex_;
  std::string abort_error_;              ///< guarded by abort_mutex_
  std::size_t huge_kb_ = 0;              ///< written by worker 0 before the join
  bool interleaved_ = false;             ///< written by worker 0 before the join
  pacer pacer_;                          ///< held with the turn, like bytes_
  std::optional<size_pattern> pattern_;  ///< held with the turn
  std::vector<std::byte> carry_;         ///< held with the turn: the start of a piece of want_ bytes
  std::size_t want_ = 0;
  bool limit_reached_ = false;  ///< held with the turn
  /// Held with the turn, for the re-checks while the pipe is full: the chunk being emitted, and
  /// the last pipe slot of each of the last threads * buffers chunks.
  std::uint64_t emitting_ = 0;
  std::vector<std::uint64_t> last_slots_;
  // The helper's buffers and their tags (empty and null without a helper), and the chunk the worker is at.
  /// How far ahead of the worker the helper claims its next chunk: far enough that the reader
  /// taking the helper's CPU seldom makes it late (claiming 2 ahead, half its chunks were late).
  static constexpr std::uint64_t kHelperLead = 4;
  /// Its buffers: the lead and two more, so that the one it claims next has left the pipe.
  static constexpr std::uint64_t kHelperBuffers = kHelperLead + 2;
  /// Under --reuse auto, two more: a buffer out of the pipe is refilled in place only once a
  /// re-check begun after it left vouches for it, which comes with the worker's next refill that
  /// needs one (about one per two chunks), and the helper waited for it. Into `fizzgen sink`
  /// (2-CPU Xeon VM, 16 GiB, --stats) the helper's chunks emitted went from 5812-13369 of 32777
  /// to 10921-14500, and whole runs took 0.91 and 0.97 of the time (paired, two hours apart);
  /// into `pv -S` 0.98. Not for the other policies, whose buffers wait for nothing: --reuse
  /// always took 0.99-1.03 of the time with eight (more memory through the helper's L2).
  static constexpr std::uint64_t kHelperBuffersAuto = kHelperLead + 4;
  /// Each allocated by the helper when it first fills it; the worker reads one only after its
  /// tag said ready (acquire), so never while the helper creates it. helper_count_ of them.
  std::array<std::optional<buffer>, kHelperBuffersAuto> helper_memory_;
  std::array<std::optional<slot_buffer>, kHelperBuffersAuto> helper_buffers_;
  std::uint64_t helper_count_ = kHelperBuffers;
  std::unique_ptr<std::atomic<std::uint64_t>[]> helper_tags_;
  alignas(64) std::atomic<std::uint64_t> worker_next_{0};
  /// Whether the helper works now (1), waits (0) or ends (kHelperStop): the worker's helper_probe decides.
  std::atomic<std::uint32_t> helper_on_{1};
  std::atomic<bool> helper_ending_{false};  ///< the run ends: the helper must not be left idle
  /// 1 + the helper buffer the helper asks the worker to give fresh pages, 0 when none.
  alignas(64) std::atomic<std::uint32_t> helper_fresh_{0};
  static constexpr std::uint32_t kHelperStop = 2;
  helper_probe probe_{helper_mode::off};  ///< the lone worker's, when it has a helper

  std::uint64_t bytes_ = 0;
  emit_status status_ = emit_status::ok;
  std::string error_;
};

}  // namespace

run_report run(generator const& gen, sink& out, run_options const& options) {
  return pipeline(gen, out, options).run();
}

}  // namespace fizzgen
