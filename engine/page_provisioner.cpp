#include "engine/page_provisioner.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <utility>

#include "engine/cpus.hpp"
#include "output/sys.hpp"

namespace fizzgen {
namespace {

/// Populated a huge page at a time, so a stop is seen between them.
constexpr std::size_t kStep = std::size_t{2} << 20;

}  // namespace

page_provisioner::page_provisioner(std::vector<std::span<std::byte>> buffers, int cpu, std::vector<int> cpus,
                                   provisioner_stats& report)
    : buffers_(std::move(buffers)),
      cpus_(std::move(cpus)),
      report_(report),
      wanted_(std::make_unique<std::atomic<std::size_t>[]>(buffers_.size())) {
  thread_ = std::jthread([this, cpu](std::stop_token st) {
    if (pin_current_thread(cpu)) stats_.cpu = cpu;
    idle_current_thread();
    // The run ending before this thread got that far: it must not stay idle (stop()).
    if (ending_.load()) release_thread(pthread_self(), cpus_);
    stats_.ran = true;
    provide(st);
  });
}

page_provisioner::~page_provisioner() { stop(); }

void page_provisioner::stop() noexcept {
  if (!thread_.joinable()) return;
  // seq_cst with the thread's own check after going idle: one of the two releases it.
  ending_.store(true);
  release_thread(thread_.native_handle(), cpus_);
  thread_.request_stop();
  posts_.fetch_add(1, std::memory_order_release);
  posts_.notify_all();
  thread_.join();
  report_ = stats_;
  report_.overtaken = overtaken_;
}

void page_provisioner::post(std::size_t index, std::size_t bytes) noexcept {
  // Release: pairs with the thread's acquire exchange (nothing it reads was written here, but the
  // discard that came before must not be populated ahead of).
  if (wanted_[index].exchange(bytes, std::memory_order_release) != 0) ++overtaken_;
  posts_.fetch_add(1, std::memory_order_release);
  posts_.notify_all();
}

void page_provisioner::provide(std::stop_token const& st) {
  std::size_t const n = buffers_.size();
  std::size_t next = 0;  // buffers are posted in turn: look first where the last one was
  while (!st.stop_requested()) {
    std::uint32_t const seen = posts_.load(std::memory_order_acquire);
    bool found = false;
    for (std::size_t j = 0; j < n && !found; ++j) {
      std::size_t const i = (next + j) % n;
      std::size_t const bytes = std::min(wanted_[i].exchange(0, std::memory_order_acquire), buffers_[i].size());
      if (bytes == 0) continue;
      found = true;
      next = i + 1;
      auto const t0 = std::chrono::steady_clock::now();
      for (std::size_t at = 0; at < bytes && !st.stop_requested(); at += kStep) {
        if (sys::madvise(buffers_[i].data() + at, std::min(kStep, bytes - at), MADV_POPULATE_WRITE) != 0 &&
            errno == EINVAL) {
          stats_.unsupported = true;  // a kernel before 5.14: the worker takes its page faults itself
          return;
        }
      }
      stats_.seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      stats_.bytes += bytes;
      ++stats_.populated;
    }
    if (!found) posts_.wait(seen, std::memory_order_acquire);  // until the next post, or the stop
  }
}

}  // namespace fizzgen
