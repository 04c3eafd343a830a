#pragma once
// Which CPUs this process may use, and pinning to them.

#include <vector>

namespace fizzgen {

/// The CPUs in this process's affinity mask (taskset, cgroups), ordered so that the first PU of
/// every physical core comes before any SMT sibling: the first N entries are the best N to pin.
/// Read once per process.
std::vector<int> allowed_cpus();

/// Pins the calling thread to `cpu`; false (and the thread stays unpinned) on failure.
bool pin_current_thread(int cpu) noexcept;

}  // namespace fizzgen
