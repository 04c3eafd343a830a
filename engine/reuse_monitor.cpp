#include "engine/reuse_monitor.hpp"

#include <algorithm>
#include <chrono>

#include "output/readers.hpp"

namespace fizzgen {

reuse_monitor::reuse_monitor(int fd, sink const& out) : fd_(fd), out_(out) {
  long const pid = newest_pid();  // before the scan: a process created after it shows as new
  scan();
  thread_ = std::jthread([this, pid](std::stop_token stop) { loop(std::move(stop), pid); });
}

reuse_monitor::~reuse_monitor() {
  thread_.request_stop();
  wake_.notify_all();
}

std::string reuse_monitor::why() const {
  std::lock_guard lock(mutex_);
  return why_;
}

void reuse_monitor::publish(reader_verdict const& v, std::uint64_t slots, std::uint64_t ticket,
                            std::shared_ptr<reader_watch> scanned, std::uint64_t generation) {
  std::lock_guard lock(mutex_);
  bool const full = scanned != nullptr;
  if (full) {
    watch_ = std::move(scanned);
    ++generation_;
  }
  if (v.safe) {
    // Older than an unsafe finding, or made on readers a scan has replaced since: stale.
    if (ticket < newest_unsafe_ticket_ || (!full && generation != generation_)) return;
    if (slots > checked_slots_.load(std::memory_order_relaxed))
      checked_slots_.store(slots, std::memory_order_release);  // pairs with vouch()'s acquire
  } else {
    newest_unsafe_ticket_ = std::max(newest_unsafe_ticket_, ticket);
  }
  std::uint64_t const s = state_.load(std::memory_order_relaxed);
  if (safe(s) != v.safe)
    state_.store(((s >> 1) + 1) << 1 | (v.safe ? 1 : 0), std::memory_order_release);  // pairs with state()
  // A safe re-check only confirms what the scan said (and knows the readers by pid alone).
  if (full || !v.safe) why_ = v.why;
}

void reuse_monitor::scan() {
  // The ticket and the slot count are taken before the readers are looked at: the inspection
  // speaks for every buffer that had left the pipe by then.
  std::uint64_t const ticket = tickets_.fetch_add(1, std::memory_order_relaxed) + 1;
  std::uint64_t const slots = out_.slots();
  reader_verdict const v = inspect_pipe_readers(fd_);
  scans_.fetch_add(1, std::memory_order_relaxed);
  publish(v, slots, ticket, std::make_shared<reader_watch>(fd_, v.readers));
}

void reuse_monitor::recheck() {
  std::shared_ptr<reader_watch> watch;
  std::uint64_t generation = 0;
  {
    std::lock_guard lock(mutex_);
    watch = watch_;
    generation = generation_;
  }
  std::uint64_t const ticket = tickets_.fetch_add(1, std::memory_order_relaxed) + 1;
  std::uint64_t const slots = out_.slots();
  rechecks_.fetch_add(1, std::memory_order_relaxed);
  publish(watch->recheck(), slots, ticket, nullptr, generation);
}

bool reuse_monitor::vouch(std::uint64_t slots) {
  if (checked_slots_.load(std::memory_order_acquire) >= slots) return true;  // pairs with publish()
  std::lock_guard const one_at_a_time(recheck_mutex_);
  if (checked_slots_.load(std::memory_order_acquire) >= slots) return true;  // another thread's re-check
  if (!safe(state())) return false;
  recheck();
  return checked_slots_.load(std::memory_order_acquire) >= slots;
}

void reuse_monitor::loop(std::stop_token stop, long pid) {
  using namespace std::chrono;
  auto const start = steady_clock::now();
  auto last_scan = start;
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    // Every wake-up costs the workers and the reader more than its own few microseconds (they
    // may be preempted mid-vmsplice): measured, waking every 2 ms instead of every 20 ms slowed
    // the default into pv by a tenth.
    wake_.wait_for(lock, stop, 20ms, [] { return false; });
    if (stop.stop_requested()) break;
    lock.unlock();
    auto const now = steady_clock::now();
    bool const settled = safe(state()) || now - start >= 500ms;
    // A new process may be a new reader: /proc/loadavg names the newest pid (a few microseconds).
    bool const due = !settled || now - last_scan >= 500ms || newest_pid() != pid;
    if (due) {
      pid = newest_pid();  // before the scan, as in the constructor
      scan();
      last_scan = now;
    }
    lock.lock();
  }
}

}  // namespace fizzgen
