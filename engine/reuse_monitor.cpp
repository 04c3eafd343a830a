#include "engine/reuse_monitor.hpp"

#include <chrono>

#include "output/readers.hpp"

namespace fizzgen {

reuse_monitor::reuse_monitor(int fd, sink const& out) : fd_(fd), out_(out) {
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

void reuse_monitor::publish(reader_verdict const& v, std::uint64_t slots_at_start) {
  std::uint64_t const s = state_.load(std::memory_order_relaxed);
  // Unsafe: vouch for nothing newer than before (the state flip below also voids older verdicts).
  if (v.safe) checked_slots_.store(slots_at_start, std::memory_order_release);  // pairs with vouches_for()
  if (reuse_monitor::safe(s) != v.safe)
    state_.store(((s >> 1) + 1) << 1 | (v.safe ? 1 : 0), std::memory_order_release);  // pairs with state()
  inspections_.fetch_add(1, std::memory_order_relaxed);
  std::lock_guard lock(mutex_);
  why_ = v.why;
}

void reuse_monitor::inspect() {
  std::uint64_t const slots = out_.slots();
  reader_verdict const v = inspect_pipe_readers(fd_);
  readers_ = v.readers;  // only this thread (and the constructor, before it starts) touches readers_
  publish(v, slots);
}

void reuse_monitor::loop(std::stop_token stop) {
  using namespace std::chrono;
  auto const start = steady_clock::now();
  auto next_full = start;
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    // The known readers are re-checked every millisecond (a few readlinks), and a buffer is
    // rewritten in place only once a check that began after it left the pipe found them safe. The
    // whole of /proc (new readers: a fork, a descriptor passed on) is scanned every 20 ms while
    // the pipeline settles, then twice a second.
    if (wake_.wait_for(lock, stop, 1ms, [] { return false; }) || stop.stop_requested()) break;
    lock.unlock();
    auto const now = steady_clock::now();
    if (now >= next_full) {
      inspect();
      next_full = now + (now - start < 500ms ? 20ms : 500ms);
    } else if (safe(state())) {
      std::uint64_t const slots = out_.slots();
      reader_verdict const v = recheck_pipe_readers(fd_, readers_);
      if (v.safe)
        checked_slots_.store(slots, std::memory_order_release);  // pairs with vouches_for()
      else
        publish(v, slots);
    }
    lock.lock();
  }
}

}  // namespace fizzgen
