#include "pipeline/ordered.hpp"

#include <sched.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_scheduler_observer.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <memory>
#include <optional>

namespace fizzgen::pipeline {
namespace {

/// Gives each thread of the arena a CPU of its own while the pool lasts, where there are CPUs
/// enough: the caller keeps the CPU it is on (its own affinity comes back when the pool ends), and
/// each of TBB's workers, as it first joins, is pinned to one of the others in turn. A worker the
/// kernel starts on its creator's CPU, where the caller is already at work on the first token,
/// waits there for its turn or for the load balancer (a 2-CPU VM's scheduler packed threads onto
/// busy vCPUs): encoding 256 MiB on two CPUs, the second thread began its first chunk
/// 2.5-3.7 ms after the first in 6 of 8 runs. Moved off the caller's CPU but free to go back (as
/// before), the two threads still shared one CPU for a while in some runs (41 ms against 30 for the
/// pipeline); pinned both ways, 30.0-31.4 ms in 8 runs of 8. With more threads than CPUs nobody is
/// pinned.
class cpu_each final : public tbb::task_scheduler_observer {
 public:
  cpu_each(tbb::task_arena& arena, unsigned threads) : tbb::task_scheduler_observer(arena) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0 || static_cast<unsigned>(CPU_COUNT(&allowed)) < threads)
      return;
    int const caller_cpu = ::sched_getcpu();
    if (caller_cpu < 0 || !CPU_ISSET(caller_cpu, &allowed)) return;
    caller_own_ = allowed;
    others_ = allowed;
    CPU_CLR(caller_cpu, &others_);
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(caller_cpu, &one);
    if (CPU_COUNT(&others_) == 0 || ::sched_setaffinity(0, sizeof one, &one) != 0) return;
    pinning_ = true;
    observe(true);
  }
  /// On the caller's thread.
  ~cpu_each() override {
    if (!pinning_) return;
    observe(false);
    (void)::sched_setaffinity(0, sizeof caller_own_, &caller_own_);
  }
  cpu_each(cpu_each const&) = delete;
  cpu_each& operator=(cpu_each const&) = delete;

  /// Whether threads are pinned, and workers counted as they join.
  bool pinning() const noexcept { return pinning_; }
  unsigned joined() const noexcept { return joined_.load(std::memory_order_acquire); }

  void on_scheduler_entry(bool is_worker) override {
    if (!is_worker) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    // A worker joins again after a while idle: it keeps the CPU it was given. (A new one inherits
    // the affinity of the thread that started it: perhaps the caller's CPU alone.)
    cpu_set_t mine;
    if (::sched_getaffinity(0, sizeof one, &one) == 0 && CPU_COUNT(&one) == 1) {
      CPU_AND(&mine, &one, &others_);
      if (CPU_COUNT(&mine) == 1) return;
    }
    CPU_ZERO(&one);
    // The k-th of the others, in turn. (A set, not a vector: nothing here is freed while a worker
    // may still read it.)
    int k =
        static_cast<int>(next_.fetch_add(1, std::memory_order_relaxed) % static_cast<unsigned>(CPU_COUNT(&others_)));
    for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
      if (CPU_ISSET(cpu, &others_) && k-- == 0) {
        CPU_SET(cpu, &one);
        break;
      }
    (void)::sched_setaffinity(0, sizeof one, &one);
    joined_.fetch_add(1, std::memory_order_release);
  }

 private:
  bool pinning_ = false;
  cpu_set_t others_{};  ///< the allowed CPUs but the caller's, for the workers in turn
  std::atomic<unsigned> next_{0}, joined_{0};
  cpu_set_t caller_own_{};  ///< the caller's affinity before the pool
};

}  // namespace

struct pool::state {
  // Taken before the run, finalized after it: see ordered.hpp on ThreadSanitizer.
  tbb::task_scheduler_handle handle{tbb::attach{}};
  // TBB caps its workers at the CPU count (and warns on stderr when asked for more) unless the
  // limit is raised: the thread count is the user's to choose.
  std::optional<tbb::global_control> limit;
  std::optional<tbb::task_arena> arena;
  std::optional<cpu_each> pin;
  bool awaited = false;  ///< await_workers() ran
};

pool::pool(unsigned threads) : threads_(std::max(threads, 1u)), state_(std::make_unique<state>()) {
  state_->limit.emplace(tbb::global_control::max_allowed_parallelism, threads_);
  state_->arena.emplace(static_cast<int>(threads_));
  state_->arena->initialize();
  state_->pin.emplace(*state_->arena, threads_);
  // Work for a worker: it starts now and joins the arena (where the observer pins it), instead
  // of once the run has begun. Encoding 256 MiB on two CPUs, the second thread began its first
  // chunk 1.2-2.0 ms after the first; started while the input is mapped, 0.5 ms after.
  if (threads_ > 1) state_->arena->enqueue([] {});
}

pool::~pool() {
  state_->pin.reset();
  state_->arena.reset();
  state_->limit.reset();
  tbb::finalize(state_->handle, std::nothrow);
}

void pool::await_workers() {
  // Pinned, a worker started on the caller's CPU still waits there until the caller's time slice
  // ends before it runs, joins and is pinned: the caller yields its CPU until every worker has
  // joined. Once per pool, never for long.
  if (state_->awaited || threads_ <= 1 || !state_->pin->pinning()) return;
  state_->awaited = true;
  auto const until = std::chrono::steady_clock::now() + std::chrono::milliseconds(5);
  while (state_->pin->joined() < threads_ - 1 && std::chrono::steady_clock::now() < until) ::sched_yield();
}

void pool::run(tbb::filter<void, void> const& chain, std::size_t tokens) {
  await_workers();
  state_->arena->execute([&] { tbb::parallel_pipeline(std::max<std::size_t>(tokens, 1), chain); });
}

void pool::each(std::size_t n, void (*f)(void* context, std::size_t i), void* context) {
  // The hand-offs through TBB are invisible to ThreadSanitizer (ordered.hpp): a release store
  // before, acquire loads in each call; a release store after each, acquire loads once all ran.
  await_workers();
  std::atomic<bool> go{false};
  auto done = std::make_unique<std::atomic<bool>[]>(n);
  go.store(true, std::memory_order_release);
  state_->arena->execute([&] {
    tbb::parallel_for(
        tbb::blocked_range<std::size_t>(0, n, 1),
        [&](tbb::blocked_range<std::size_t> const& r) {
          (void)go.load(std::memory_order_acquire);
          for (std::size_t i = r.begin(); i != r.end(); ++i) {
            f(context, i);
            done[i].store(true, std::memory_order_release);
          }
        },
        tbb::simple_partitioner{});
  });
  for (std::size_t i = 0; i < n; ++i) (void)done[i].load(std::memory_order_acquire);
}

}  // namespace fizzgen::pipeline
