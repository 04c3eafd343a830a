#include "engine/cpus.hpp"

#include <hwloc.h>
#include <pthread.h>
#include <sched.h>

#include <algorithm>

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

/// For each cpu, its index among the PUs of its core (0 = first thread of the core).
std::vector<int> smt_rank(std::vector<int> const& cpus) {
  std::vector<int> rank(cpus.size(), 0);
  hwloc_topology_t topo = nullptr;
  if (hwloc_topology_init(&topo) != 0) return rank;
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
  }
  hwloc_topology_destroy(topo);
  return rank;
}

/// The affinity mask, first PUs of cores before SMT siblings.
std::vector<int> ordered_cpus() {
  std::vector<int> cpus = affinity_mask();
  std::vector<int> const rank = smt_rank(cpus);
  std::vector<std::size_t> order(cpus.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rank[a] < rank[b]; });
  std::vector<int> out;
  out.reserve(order.size());
  for (std::size_t i : order) out.push_back(cpus[i]);
  return out;
}

}  // namespace

std::vector<int> allowed_cpus() {
  // Loading the hwloc topology reads much of /sys: once per process is enough (the mask is the
  // process's at start-up, which is what taskset and cgroups set).
  static std::vector<int> const ordered = ordered_cpus();
  return ordered;
}

bool pin_current_thread(int cpu) noexcept {
  cpu_set_t set;
  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return pthread_setaffinity_np(pthread_self(), sizeof set, &set) == 0;
}

}  // namespace fizzgen
