#include "engine/cpus.hpp"

#include <hwloc.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <cstdlib>

namespace fizzgen {
namespace {

std::vector<int> affinity_mask() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

/// The smallest cache of `type` above any of `cpus`, 0 when none is described.
std::size_t smallest_cache(hwloc_topology_t topo, std::vector<int> const& cpus, hwloc_obj_type_t type) {
  std::size_t smallest = 0;
  for (int cpu : cpus) {
    hwloc_obj_t const pu = hwloc_get_pu_obj_by_os_index(topo, static_cast<unsigned>(cpu));
    hwloc_obj_t const cache = pu ? hwloc_get_ancestor_obj_by_type(topo, type, pu) : nullptr;
    if (cache == nullptr || cache->attr == nullptr || cache->attr->cache.size == 0) continue;
    auto const size = static_cast<std::size_t>(cache->attr->cache.size);
    smallest = smallest == 0 ? size : std::min(smallest, size);
  }
  return smallest;
}

/// What hwloc says about the CPUs in the affinity mask: their order (first PUs of cores before
/// SMT siblings) and their caches.
machine_topology read_topology() {
  machine_topology t;
  std::vector<int> cpus = affinity_mask();
  std::vector<int> rank(cpus.size(), 0);  // each cpu's index among the PUs of its core
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) == 0) {
    if (hwloc_topology_load(topo) == 0) {
      for (std::size_t i = 0; i < cpus.size(); ++i) {
        hwloc_obj_t pu = hwloc_get_pu_obj_by_os_index(topo, static_cast<unsigned>(cpus[i]));
        hwloc_obj_t core = pu ? hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu) : nullptr;
        if (core == nullptr) continue;
        int r = 0;
        for (unsigned j = 0; j < core->arity; ++j) {
          if (core->children[j] == pu) break;
          ++r;
        }
        rank[i] = r;
      }
      t.caches.l2_bytes = smallest_cache(topo, cpus, HWLOC_OBJ_L2CACHE);
      t.caches.l3_bytes = smallest_cache(topo, cpus, HWLOC_OBJ_L3CACHE);
    }
    hwloc_topology_destroy(topo);
  }
  std::vector<std::size_t> order(cpus.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank[a] < rank[b]; });
  t.cpus.reserve(order.size());
  for (std::size_t i : order) t.cpus.push_back(cpus[i]);
  return t;
}

}  // namespace

machine_topology const& topology() {
  // Loading the hwloc topology reads much of /sys: once per process is enough (the mask is the
  // process's at start-up, which is what taskset and cgroups set).
  static machine_topology const t = read_topology();
  return t;
}

std::vector<int> allowed_cpus() { return topology().cpus; }

unsigned allowed_cpu_count() noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) != 0) return 1;
  return std::max(1, CPU_COUNT(&set));
}

bool exact_threads() noexcept {
  char const* v = std::getenv("FIZZGEN_EXACT_THREADS");
  return v != nullptr && v[0] == '1';
}

unsigned threads_for_cpus(unsigned asked) noexcept {
  return exact_threads() ? asked : std::min(asked, allowed_cpu_count());
}

bool pin_current_thread(int cpu) noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

void idle_current_thread() noexcept {
  sched_param const idle_priority{};
  static_cast<void>(pthread_setschedparam(pthread_self(), SCHED_IDLE, &idle_priority));
}

void release_thread(pthread_t thread, std::vector<int> const& cpus) noexcept {
  sched_param const normal{};
  static_cast<void>(pthread_setschedparam(thread, SCHED_OTHER, &normal));
  cpu_set_t set;
  CPU_ZERO(&set);
  for (int const cpu : cpus) CPU_SET(cpu, &set);
  if (!cpus.empty()) static_cast<void>(pthread_setaffinity_np(thread, sizeof set, &set));
}

}  // namespace fizzgen
