#pragma once
// Which CPUs this process may use, their caches, and pinning to them.

#include <pthread.h>

#include <cstddef>
#include <vector>

namespace fizzgen {

/// Cache sizes of the CPUs this process may run on (the smallest where they differ); 0: unknown.
struct cache_sizes {
  std::size_t l2_bytes = 0;  ///< the L2 above one core
  std::size_t l3_bytes = 0;  ///< the L3 above it, shared
};

struct machine_topology {
  std::vector<int> cpus;  ///< as allowed_cpus()
  cache_sizes caches;
};

/// What hwloc says about the CPUs in the affinity mask. Read once per process.
machine_topology const& topology();

/// The CPUs in this process's affinity mask (taskset, cgroups), ordered so that the first PU of
/// every physical core comes before any SMT sibling: the first N entries are the best N to pin.
/// Read once per process.
std::vector<int> allowed_cpus();

/// How many CPUs this process's affinity mask holds (at least 1), from the mask alone: where only
/// a count is needed, without the few ms hwloc takes to read the topology.
unsigned allowed_cpu_count() noexcept;

/// FIZZGEN_EXACT_THREADS=1: every thread asked for runs, even past what the CPUs can use (tests of
/// the hand-offs between threads on few CPUs).
bool exact_threads() noexcept;

/// The threads to run of `asked`: no more than allowed_cpu_count(), since threads past the CPUs
/// only take turns on them (`morse encode -j 8` on 2 CPUs took 1.33x the time of -j 2, `check
/// -j 8` 1.12x), unless exact_threads().
unsigned threads_for_cpus(unsigned asked) noexcept;

/// Pins the calling thread to `cpu`; false (and the thread stays unpinned) on failure.
bool pin_current_thread(int cpu) noexcept;

/// Puts the calling thread at SCHED_IDLE: it runs only when nothing else wants its CPU.
void idle_current_thread() noexcept;

/// Takes `thread` off SCHED_IDLE and lets it run on any of `cpus` (left as it is when empty): at
/// the end of a run, so that a thread pinned beside a busy process ends at once.
void release_thread(pthread_t thread, std::vector<int> const& cpus) noexcept;

}  // namespace fizzgen
