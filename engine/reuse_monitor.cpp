#include "engine/reuse_monitor.hpp"

#include <algorithm>
#include <chrono>
#include <utility>

namespace fizzgen {

reuse_monitor::reuse_monitor(sink const& out) : fd_(-1), out_(out), facts_{} {
  state_.store(make_state(0, taint::not_yet, false), std::memory_order_relaxed);
}

reuse_monitor::reuse_monitor(int fd, sink const& out) : fd_(fd), out_(out), facts_(pipe_facts_of(fd)) {
  state_.store(make_state(0, taint::not_yet, false), std::memory_order_relaxed);
  why_ = "readers not inspected yet";
  thread_ = std::jthread([this](std::stop_token stop) { loop(std::move(stop)); });
}

reuse_monitor::~reuse_monitor() {
  thread_.request_stop();
  wake_.notify_all();
}

std::string reuse_monitor::why() const {
  std::lock_guard lock(mutex_);
  return why_;
}

std::string reuse_monitor::safe_why() const {
  std::lock_guard lock(mutex_);
  return safe_why_;
}

std::array<std::uint64_t, kTaints> reuse_monitor::breaks() const {
  std::lock_guard lock(mutex_);
  return breaks_;
}

std::optional<std::uint64_t> reuse_monitor::opens() {
  std::lock_guard lock(opens_mutex_);
  if (!open_counter_) open_counter_.emplace(fd_);  // before the first scan looks at the readers
  return open_counter_->opens();
}

void reuse_monitor::publish(reader_verdict const& v, std::uint64_t gone, std::uint64_t ticket, epoch_facts facts) {
  std::lock_guard lock(mutex_);
  bool const full = facts.watch != nullptr;
  std::uint64_t const checked = facts.generation;  // the epoch a re-check checked
  if (full) {
    facts.generation = epoch_.generation + 1;
    epoch_ = std::move(facts);
  }
  std::uint64_t const s = state_.load(std::memory_order_relaxed);
  std::uint64_t const counter = s >> 5;
  if (v.safe) {
    // Older than an unsafe finding: stale. A re-check only confirms the epoch it checked, and
    // only while that epoch lasts: once ended, only a scan opens the next.
    if (ticket < newest_unsafe_ticket_) return;
    if (!full && (checked != epoch_.generation || !safe(s))) return;
    if (gone > checked_gone_.load(std::memory_order_relaxed))
      checked_gone_.store(gone, std::memory_order_release);  // pairs with vouch()'s acquire
    if (full) {
      state_.store(make_state(counter + 1, taint::none, true), std::memory_order_release);  // pairs with state()
      epochs_.fetch_add(1, std::memory_order_relaxed);
      why_ = safe_why_ = v.why;
    }
    return;
  }
  newest_unsafe_ticket_ = std::max(newest_unsafe_ticket_, ticket);
  if (safe(s) || full) breaks_[static_cast<std::size_t>(v.reason)] += 1;
  if (safe(s)) {
    last_break_.store(static_cast<std::uint8_t>(v.reason), std::memory_order_relaxed);
    // Every buffer emitted until the next epoch opens goes to fresh pages: open it soon.
    rescan_ = true;
    wake_.notify_all();
  }
  if (safe(s) || reason(s) != v.reason)
    state_.store(make_state(counter + 1, v.reason, false), std::memory_order_release);  // pairs with state()
  why_ = v.why;
}

void reuse_monitor::scan(std::stop_token const& stop) {
  // The ticket, slots gone, newest pid and open count are taken before the readers are looked
  // at: whatever happens after shows at the epoch's first re-check.
  std::uint64_t const ticket = tickets_.fetch_add(1, std::memory_order_relaxed) + 1;
  std::uint64_t const gone = out_.slots_gone();
  epoch_facts facts;
  facts.pid = pids_.newest();
  auto const opened = opens();
  reader_verdict v = inspect_pipe_readers(facts_, "/proc", stop);
  if (!opened && v.safe) v = {false, taint::pipe_opened, "cannot watch the pipe for opens (inotify)", {}};
  if (facts.pid < 0 && v.safe) v = {false, taint::proc_unreadable, "cannot read the newest pid", {}};
  facts.opens = opened.value_or(0);
  readers_safe_.store(v.safe, std::memory_order_relaxed);
  facts.watch = std::make_shared<reader_watch>(fd_, v.readers);
  facts.readers = v.readers;
  std::sort(facts.readers.begin(), facts.readers.end());
  scans_.fetch_add(1, std::memory_order_relaxed);
  publish(v, gone, ticket, std::move(facts));
}

void reuse_monitor::recheck() {
  auto const began = std::chrono::steady_clock::now();
  epoch_facts epoch;
  {
    std::lock_guard lock(mutex_);
    epoch = epoch_;
  }
  std::uint64_t const ticket = tickets_.fetch_add(1, std::memory_order_relaxed) + 1;
  // The slots out of the pipe now (its capacity read after the slot count): the buffers this
  // re-check can vouch for. Read after them: a process created, or an open, before those buffers
  // had left the pipe shows here.
  std::uint64_t const gone = out_.slots_gone();
  long const pid = pids_.newest();
  auto const opened = opens();
  rechecks_.fetch_add(1, std::memory_order_relaxed);
  reader_verdict v = epoch.watch->recheck();
  if (v.safe && opened != epoch.opens) {
    v = {false, taint::pipe_opened, "the pipe was opened (through /proc) since the readers were scanned", {}};
  } else if (v.safe && pid != epoch.pid) {
    if (created_harmless(epoch.pid, pid)) {
      std::lock_guard lock(mutex_);  // our own threads or kernel threads: the epoch goes on
      if (epoch_.generation == epoch.generation) epoch_.pid = std::max(epoch_.pid, pid);
    } else {
      v = {false, taint::process_created, "a process was created since the readers were scanned", {}};
    }
  }
  epoch.watch = nullptr;
  publish(v, gone, ticket, std::move(epoch));
  auto const ns = std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - began);
  recheck_ns_.fetch_add(static_cast<std::uint64_t>(ns.count()), std::memory_order_relaxed);
}

void reuse_monitor::confirm(std::stop_token const& stop) {
  epoch_facts epoch;
  {
    std::lock_guard lock(mutex_);
    epoch = epoch_;
  }
  std::uint64_t const ticket = tickets_.fetch_add(1, std::memory_order_relaxed) + 1;
  std::uint64_t const gone = out_.slots_gone();
  reader_verdict v = inspect_pipe_readers(facts_, "/proc", stop);
  scans_.fetch_add(1, std::memory_order_relaxed);
  std::sort(v.readers.begin(), v.readers.end());
  if (v.safe && v.readers != epoch.readers)
    v = {false, taint::readers_changed, "a scan found readers the epoch's scan did not: " + v.why, {}};
  readers_safe_.store(v.safe, std::memory_order_relaxed);
  if (v.safe) return;  // confirmed: the re-checks go on vouching
  epoch.watch = nullptr;
  publish(v, gone, ticket, std::move(epoch));
}

bool reuse_monitor::vouch(std::uint64_t last) {
  if (vouched(last)) return true;
  std::lock_guard const one_at_a_time(recheck_mutex_);
  if (vouched(last)) return true;  // another thread's re-check
  if (!safe(state())) return false;
  recheck();
  return vouched(last);
}

void reuse_monitor::vouch_ahead(std::uint64_t last) {
  if (checked_gone_.load(std::memory_order_relaxed) >= last || !safe(state())) return;
  std::unique_lock const one_at_a_time(recheck_mutex_, std::try_to_lock);
  if (one_at_a_time.owns_lock()) recheck();
}

void reuse_monitor::loop(std::stop_token stop) {
  using namespace std::chrono;
  {
    // No buffer can be rewritten before the slots emitted after it filled the pipe: until two
    // pipes' worth went out there is nothing to vouch for.
    std::unique_lock lock(mutex_);
    auto pause = microseconds(100);
    auto const needed = [this] { return 2 * std::max<std::uint64_t>(1, out_.current_pipe_size() / 4096); };
    while (!stop.stop_requested() && out_.slots() < needed()) {
      wake_.wait_for(lock, stop, pause, [] { return false; });
      pause = std::min<microseconds>(2 * pause, 20ms);
    }
    if (stop.stop_requested()) return;
  }
  scan(stop);
  auto const start = steady_clock::now();
  auto last_scan = start;
  long last_pid = pids_.newest();
  std::unique_lock lock(mutex_);
  while (!stop.stop_requested()) {
    // Every wake-up costs the workers and the reader more than its own few microseconds (they
    // may be preempted mid-vmsplice): measured, waking every 2 ms instead of every 20 ms slowed
    // the default into pv by a tenth.
    wake_.wait_for(lock, stop, 20ms, [this] { return rescan_; });
    if (stop.stop_requested()) break;
    bool const rescan = std::exchange(rescan_, false);
    long const epoch_pid = epoch_.pid;
    std::uint64_t const epoch_opens = epoch_.opens;
    lock.unlock();
    auto const now = steady_clock::now();
    long const pid = pids_.newest();
    bool const opened = opens() != epoch_opens;
    if (safe(state())) {
      // A process created or an open ends the epoch unless shown harmless: find out now rather
      // than at a worker's next re-check, so the next epoch opens sooner.
      if (pid != epoch_pid || opened) {
        std::lock_guard const one_at_a_time(recheck_mutex_);
        recheck();
      } else if (now - last_scan >= 500ms) {
        confirm(stop);
        last_scan = now;
      }
    }
    if (!safe(state())) {
      bool const settled = now - start >= 500ms;
      // A pipeline still settling is scanned often; after that a scan costs a CPU's while on
      // every wake-up, so only news (a process, an open) or a quarter of a second brings one.
      bool const news = (pid != last_pid || opened) && now - last_scan >= 60ms;
      if (!settled || news || rescan || now - last_scan >= 250ms) {
        last_pid = pid;
        scan(stop);
        last_scan = now;
      }
    }
    lock.lock();
  }
}

}  // namespace fizzgen
