#pragma once
// Fresh pages ahead of time, on another CPU. With --reuse never every refill needs pages the pipe
// does not hold: the worker drops its buffer's pages (MADV_DONTNEED) as soon as the chunk is in the
// pipe, and the kernel zeroes new ones at the next write. That zeroing cost the lone worker more
// than the generating (clear_page_erms, 38% of the samples into pv). A provisioner thread on the
// reader's CPU, at SCHED_IDLE so the reader always comes first, faults the new pages in
// (MADV_POPULATE_WRITE) while the worker fills its other buffers.
//
// It never writes a byte: populating only maps zeroed pages where none is mapped, so a worker that
// comes back to a buffer first just takes the page faults itself, and never waits for this thread.
// Populating holds the address space's lock for reading; whatever would take it for writing (the
// worker unmapping its buffers at the end) first gives this thread a normal priority (release()).

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <thread>
#include <vector>

#include "engine/helper_probe.hpp"

namespace fizzgen {

/// What the provisioner did.
struct provisioner_stats {
  bool ran = false;
  int cpu = -1;
  helper_mode mode = helper_mode::off;            ///< as the helper's (--helper)
  std::uint64_t windows = 0, windows_helped = 0;  ///< automatic: timed windows, and those it worked in
  std::uint64_t window_chunks = 0;                ///< chunks per window
  std::uint64_t populated = 0;                    ///< buffers whose fresh pages it faulted in
  std::uint64_t overtaken = 0;                    ///< buffers posted again before it got to them (the worker was first)
  std::uint64_t bytes = 0;
  double seconds = 0;        ///< in MADV_POPULATE_WRITE
  bool unsupported = false;  ///< the kernel refused MADV_POPULATE_WRITE (before 5.14): it stopped
};

class page_provisioner {
 public:
  /// Starts the thread pinned to `cpu`, for the buffers `buffers` (which outlive it); `cpus`: every
  /// CPU the process may use, given to it at the end; `report`: where stop() leaves the stats.
  page_provisioner(std::vector<std::span<std::byte>> buffers, int cpu, std::vector<int> cpus,
                   provisioner_stats& report);
  /// stop().
  ~page_provisioner();
  page_provisioner(page_provisioner const&) = delete;
  page_provisioner& operator=(page_provisioner const&) = delete;

  /// The first `bytes` of buffer `index` have just been discarded: fault fresh pages in for them.
  void post(std::size_t index, std::size_t bytes) noexcept;

  /// Gives the thread a normal priority and every CPU, stops it, joins it and writes the report.
  void stop() noexcept;

 private:
  void provide(std::stop_token const& st);

  std::vector<std::span<std::byte>> buffers_;
  std::vector<int> cpus_;
  provisioner_stats& report_;
  /// Per buffer: bytes to populate, 0 when nothing is posted. Exchanged to 0 by the thread.
  std::unique_ptr<std::atomic<std::size_t>[]> wanted_;
  alignas(64) std::atomic<std::uint32_t> posts_{0};  ///< bumped by every post: the thread sleeps on it
  std::atomic<bool> ending_{false};
  provisioner_stats stats_;      ///< the thread's
  std::uint64_t overtaken_ = 0;  ///< the posting thread's
  std::jthread thread_;          ///< last: started after everything it reads
};

}  // namespace fizzgen
