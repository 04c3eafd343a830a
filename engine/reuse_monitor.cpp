#include "engine/reuse_monitor.hpp"

#include <chrono>

#include "output/readers.hpp"

namespace fizzgen {

reuse_monitor::reuse_monitor(int fd) : fd_(fd) {
  inspect();
  thread_ = std::jthread([this](std::stop_token stop) { loop(stop); });
}

reuse_monitor::~reuse_monitor() {
  thread_.request_stop();
  wake_.notify_all();
}

std::string reuse_monitor::why() const {
  std::lock_guard lock(mutex_);
  return why_;
}

void reuse_monitor::inspect() {
  reader_verdict const v = inspect_pipe_readers(fd_);
  std::uint64_t const s = state_.load(std::memory_order_relaxed);
  if (reuse_monitor::safe(s) != v.safe)
    state_.store(((s >> 1) + 1) << 1 | (v.safe ? 1 : 0), std::memory_order_release);  // pairs with state()
  inspections_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  why_ = v.why;
}

void reuse_monitor::loop(std::stop_token stop) {
  using namespace std::chrono;
  auto const start = steady_clock::now();
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    auto const age = steady_clock::now() - start;
    // Every 10 ms for the first half second, every 100 ms for the next few, then every second.
    milliseconds const pause = age < 500ms ? 10ms : age < 5s ? 100ms : 1000ms;
    if (wake_.wait_for(lock, stop, pause, [] { return false; })) break;
    if (stop.stop_requested()) break;
    lock.unlock();
    inspect();
    lock.lock();
  }
}

}  // namespace fizzgen
