#include "pipeline/ordered.hpp"

#include <sched.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#include <tbb/task_scheduler_observer.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <optional>

namespace fizzgen::pipeline {
namespace {

/// Moves each of TBB's workers, as it joins the arena, off the CPU the calling thread runs on, then
/// gives it back its own affinity: a move, not a pin. A worker the kernel starts on its creator's
/// CPU, where the caller is already at work on the first token, waits there for its turn or for
/// the load balancer: encoding 256 MiB on two CPUs, the second thread began its first chunk 0.66 to
/// 4.4 ms into the pipeline (9 of 12 runs after 2 ms), with the move within 0.94 ms in 8 of 12
/// (a 36 ms run). With more threads than CPUs it is left alone.
class off_the_callers_cpu final : public tbb::task_scheduler_observer {
 public:
  off_the_callers_cpu(tbb::task_arena& arena, unsigned threads) : tbb::task_scheduler_observer(arena) {
    cpu_set_t allowed;
    CPU_ZERO(&allowed);
    if (::sched_getaffinity(0, sizeof allowed, &allowed) != 0 || static_cast<unsigned>(CPU_COUNT(&allowed)) < threads)
      return;
    caller_cpu_ = ::sched_getcpu();
    if (caller_cpu_ >= 0) observe(true);
  }
  ~off_the_callers_cpu() override { observe(false); }
  off_the_callers_cpu(off_the_callers_cpu const&) = delete;
  off_the_callers_cpu& operator=(off_the_callers_cpu const&) = delete;

  void on_scheduler_entry(bool is_worker) override {
    if (!is_worker) return;
    cpu_set_t own, elsewhere;
    CPU_ZERO(&own);
    if (::sched_getaffinity(0, sizeof own, &own) != 0 || !CPU_ISSET(caller_cpu_, &own)) return;
    elsewhere = own;
    CPU_CLR(caller_cpu_, &elsewhere);
    if (CPU_COUNT(&elsewhere) == 0 || ::sched_setaffinity(0, sizeof elsewhere, &elsewhere) != 0) return;
    (void)::sched_setaffinity(0, sizeof own, &own);
  }

 private:
  int caller_cpu_ = -1;
};

}  // namespace

struct pool::state {
  // Taken before the run, finalized after it: see ordered.hpp on ThreadSanitizer.
  tbb::task_scheduler_handle handle{tbb::attach{}};
  // TBB caps its workers at the CPU count (and warns on stderr when asked for more) unless the
  // limit is raised: the thread count is the user's to choose.
  std::optional<tbb::global_control> limit;
  std::optional<tbb::task_arena> arena;
  std::optional<off_the_callers_cpu> move_workers;
};

pool::pool(unsigned threads) : threads_(std::max(threads, 1u)), state_(std::make_unique<state>()) {
  state_->limit.emplace(tbb::global_control::max_allowed_parallelism, threads_);
  state_->arena.emplace(static_cast<int>(threads_));
  state_->arena->initialize();
  state_->move_workers.emplace(*state_->arena, threads_);
  // Work for a worker: it starts now and joins the arena (where the observer moves it), instead
  // of once the run has begun. Encoding 256 MiB on two CPUs, the second thread began its first
  // chunk 1.2-2.0 ms after the first; started while the input is mapped, 0.5 ms after.
  if (threads_ > 1) state_->arena->enqueue([] {});
}

pool::~pool() {
  state_->move_workers.reset();
  state_->arena.reset();
  state_->limit.reset();
  tbb::finalize(state_->handle, std::nothrow);
}

void pool::run(tbb::filter<void, void> const& chain, std::size_t tokens) {
  state_->arena->execute([&] { tbb::parallel_pipeline(std::max<std::size_t>(tokens, 1), chain); });
}

void pool::each(std::size_t n, void (*f)(void* context, std::size_t i), void* context) {
  // The hand-offs through TBB are invisible to ThreadSanitizer (ordered.hpp): a release store
  // before, acquire loads in each call; a release store after each, acquire loads once all ran.
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
