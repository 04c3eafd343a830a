#pragma once
// The ordered parallel pipeline that `fizzgen morse` (engine/morse_stream.cpp) and `fizzgen check`
// on threads (verify/check_parallel.cpp) run on: a serial stage reads the input into tokens in
// order, a parallel stage transforms each token, a serial stage combines them in input order.
// Tokens are pooled and reused (fresh multi-MiB buffers per chunk would cost a page fault a page).
//
// ThreadSanitizer: oneTBB hands tokens from thread to thread inside libtbb.so, which Debian ships
// without TSan instrumentation, so TSan sees none of those hand-offs. This component makes every
// one of them visible with plain C++ synchronisation, so that no caller needs annotations:
//   - a token goes from stage to stage with a release store and an acquire load of its `stage`;
//   - each serial stage runs under its own mutex (never contended: TBB runs one call at a time),
//     which orders its calls on different threads, and both are taken once the run is over, which
//     orders everything the serial stages wrote before the caller reads it;
//   - the pool is a mutex-guarded free list;
//   - TBB's worker threads are joined when their pool ends (tbb::finalize; a run without a pool of
//     the caller's has one of its own), so the next pool's workers are new threads, ordered by
//     pthread_create, rather than parked ones woken inside libtbb; within a pool, each run hands
//     its tokens on as above, and pool::each hands on with an atomic each way.
// What is left is TBB's own header code reusing its own memory: tests/tsan.supp.

#include <tbb/parallel_pipeline.h>

#include <atomic>
#include <cstddef>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace fizzgen::pipeline {

/// TBB's threads for a run, `threads` of them with the caller (TBB's cap at the CPU count raised to
/// it): asked for at construction, so that a worker, which takes a millisecond or two to start
/// and join, starts while the caller prepares its input; joined (tbb::finalize) at destruction.
class pool {
 public:
  explicit pool(unsigned threads);
  ~pool();
  pool(pool const&) = delete;
  pool& operator=(pool const&) = delete;

  unsigned threads() const noexcept { return threads_; }
  /// Runs `chain` with at most `tokens` in flight. Rethrows the first exception a stage threw.
  void run(tbb::filter<void, void> const& chain, std::size_t tokens);
  /// Calls f(i) for every i below n, on the pool's threads at once (on the caller's alone when
  /// they are busy); each call sees what the caller wrote before, and the caller what each wrote.
  /// f must not throw.
  void each(std::size_t n, void (*f)(void* context, std::size_t i), void* context);

 private:
  struct state;
  /// Lets the workers join (and be pinned) before the first run: see ordered.cpp.
  void await_workers();
  unsigned threads_;
  std::unique_ptr<state> state_;
};

/// Reads in order, transforms in parallel, combines in order, on `threads` threads with at most
/// `tokens` tokens in flight (both >= 1; one thread: one token, on the caller's thread), until
/// `read` says the input ended or `combine` says stop:
///   bool read(Token&)       fills a token (a reused one keeps its buffers); false: nothing left
///   void transform(Token&)  on any thread, tokens at once
///   bool combine(Token&)    in read order; false: stop reading (tokens read already are dropped)
/// Exceptions from any stage end the run and come out of this call.
template <class Token, class Read, class Transform, class Combine>
void run_ordered(pool* workers, unsigned threads, std::size_t tokens, Read&& read, Transform&& transform,
                 Combine&& combine);

template <class Token, class Read, class Transform, class Combine>
void run_ordered(unsigned threads, std::size_t tokens, Read&& read, Transform&& transform, Combine&& combine) {
  run_ordered<Token>(nullptr, threads, tokens, std::forward<Read>(read), std::forward<Transform>(transform),
                     std::forward<Combine>(combine));
}

/// As above, on the threads of `workers` (whose count is then `threads`) when not null, else on
/// threads started for the run.
template <class Token, class Read, class Transform, class Combine>
void run_ordered(pool* workers, unsigned threads, std::size_t tokens, Read&& read, Transform&& transform,
                 Combine&& combine) {
  if (workers != nullptr) threads = workers->threads();
  if (threads <= 1) {
    // One thread runs one token at a time under TBB too: here the stages take turns on the
    // caller's thread without starting TBB, whose start-up (loading its allocator, looking for
    // its thread server) cost about 2 ms of every run.
    Token token;
    while (read(token)) {
      transform(token);
      if (!combine(token)) break;
    }
    return;
  }
  struct slot {
    Token token;
    std::atomic<int> stage{0};
    void hand_on(int to) noexcept { stage.store(to, std::memory_order_release); }     // pairs with take_from
    void take_from() const noexcept { (void)stage.load(std::memory_order_acquire); }  // pairs with hand_on
  };
  std::mutex pool_lock, read_order, combine_order;
  std::vector<std::unique_ptr<slot>> all;
  std::vector<slot*> free;
  auto const take = [&]() -> slot* {
    std::lock_guard const lock(pool_lock);
    if (free.empty()) return all.emplace_back(std::make_unique<slot>()).get();
    slot* s = free.back();
    free.pop_back();
    return s;
  };
  auto const give = [&](slot* s) {
    std::lock_guard const lock(pool_lock);
    free.push_back(s);
  };
  // Set by the combining stage, read by the reading one: only a hint to stop early.
  std::atomic<bool> stop{false};

  auto const first = [&](tbb::flow_control& fc) -> slot* {
    std::lock_guard const order(read_order);
    slot* s = stop.load(std::memory_order_relaxed) ? nullptr : take();
    if (s != nullptr) {
      s->take_from();  // a reused token: what the last stage wrote into it
      if (read(s->token)) {
        s->hand_on(1);
        return s;
      }
      give(s);
    }
    fc.stop();
    return nullptr;
  };
  auto const middle = [&](slot* s) -> slot* {
    s->take_from();
    transform(s->token);
    s->hand_on(2);
    return s;
  };
  auto const last = [&](slot* s) {
    std::lock_guard const order(combine_order);
    s->take_from();
    if (!stop.load(std::memory_order_relaxed) && !combine(s->token)) stop.store(true, std::memory_order_relaxed);
    s->hand_on(0);
    give(s);
  };
  auto const chain = tbb::make_filter<void, slot*>(tbb::filter_mode::serial_in_order, first) &
                     tbb::make_filter<slot*, slot*>(tbb::filter_mode::parallel, middle) &
                     tbb::make_filter<slot*, void>(tbb::filter_mode::serial_in_order, last);
  if (workers != nullptr) {
    workers->run(chain, tokens);
  } else {
    pool own(threads);  // joined before the locks below are taken
    own.run(chain, tokens);
  }
  std::scoped_lock const done(read_order, combine_order);  // see the top of the file
}

}  // namespace fizzgen::pipeline
