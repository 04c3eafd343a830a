#include "engine/run.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "engine/buffer.hpp"
#include "engine/cpus.hpp"
#include "engine/spin.hpp"

namespace fizzgen {
namespace {

/// The turn: the index (mod 2^32) of the next chunk to emit. Only equality is ever tested and at
/// most T chunks wait at once, so 32 bits never alias; a 32-bit word lets waiters sleep on a futex.
struct alignas(64) turn_word {
  std::atomic<std::uint32_t> next{0};
};
static_assert(sizeof(turn_word) == 64);

/// Moving the turn this far away wakes every waiter without handing the turn to any of them.
constexpr std::uint32_t kStopOffset = 0x8000'0000u;

class pipeline {
 public:
  pipeline(generator const& gen, sink& out, run_options const& options)
      : gen_(gen), out_(out), options_(options) {}

  run_report run() {
    run_report report;
    report.threads = options_.threads;
    auto const start = std::chrono::steady_clock::now();
    if (!options_.byte_limit || *options_.byte_limit > 0) {
      std::vector<int> const cpus = options_.pin ? allowed_cpus() : std::vector<int>{};
      std::vector<std::jthread> workers;
      for (unsigned w = 0; w < options_.threads; ++w)
        workers.emplace_back([this, w, &cpus] {
          try {
            if (!cpus.empty() && pin_current_thread(cpus[w % cpus.size()]))
              pinned_.fetch_add(1, std::memory_order_relaxed);
            work(w);
          } catch (std::exception const& e) {
            abort_with(e.what());
          }
        });
    }
    report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    // The workers have been joined: everything they wrote is visible here.
    report.bytes = bytes_;
    report.status = status_;
    report.error = error_;
    if (!abort_error_.empty() && status_ == emit_status::ok) {
      report.status = emit_status::failed;
      report.error = abort_error_;
    }
    report.pinned = pinned_.load(std::memory_order_relaxed);
    return report;
  }

 private:
  void work(unsigned w) {
    unsigned const n_buffers = std::max(1u, options_.buffers_per_worker);
    std::vector<buffer> buffers;
    for (unsigned b = 0; b < n_buffers; ++b) buffers.emplace_back(gen_.chunk_capacity());
    std::vector<std::uint64_t> filled_lines(n_buffers, 0);  // lines in the buffer, 0: not filled
    std::vector<std::size_t> filled_bytes(n_buffers, 0);
    std::vector<bool> referenced(n_buffers, false);  // the kernel may still hold its pages
    bool const constant = gen_.constant();
    spin_policy const spin;

    for (std::uint64_t k = 0;; ++k) {
      std::uint64_t const index = w + k * options_.threads;
      std::optional<chunk> const c = gen_.plan(index);
      if (!c) return;
      std::size_t const b = k % n_buffers;
      // A constant generator's buffer already holds this chunk's bytes; anything else is refilled,
      // on fresh pages if the pipe may still reference the old ones.
      if (!(constant && filled_lines[b] == c->lines)) {
        if (referenced[b]) buffers[b].discard();
        referenced[b] = false;
        filled_bytes[b] = gen_.fill(*c, buffers[b].span());
        filled_lines[b] = c->lines;
      }

      auto const mine = static_cast<std::uint32_t>(index);
      spin.wait(turn_.next, [&](std::uint32_t v) { return v == mine || stop_.load(std::memory_order_relaxed); });
      // Acquire pairs with the release store of the thread that set stop_ before moving the turn.
      if (turn_.next.load(std::memory_order_acquire) != mine || stop_.load(std::memory_order_relaxed)) return;

      // This thread holds the turn: bytes_, status_ and error_ are ours until we pass it on.
      std::size_t size = filled_bytes[b];
      if (options_.byte_limit) size = static_cast<std::size_t>(std::min<std::uint64_t>(size, *options_.byte_limit - bytes_));
      emit_status const status = out_.emit({buffers[b].data(), size});
      bytes_ += size;
      referenced[b] = out_.shares_pages();
      bool const done = status != emit_status::ok || (options_.byte_limit && bytes_ >= *options_.byte_limit);
      if (done) {
        status_ = status;
        error_ = out_.error();
        stop_.store(true, std::memory_order_relaxed);
        turn_.next.store(mine + kStopOffset, std::memory_order_release);  // pairs with the waiters' acquire
      } else {
        turn_.next.store(mine + 1, std::memory_order_release);  // pairs with the next holder's acquire
      }
      turn_.next.notify_all();
      if (done) return;
    }
  }

  /// Stops every worker after an error outside the turn (allocation failure).
  void abort_with(std::string const& what) {
    std::lock_guard lock(abort_mutex_);
    if (abort_error_.empty()) abort_error_ = what;
    stop_.store(true, std::memory_order_relaxed);
    turn_.next.fetch_add(kStopOffset, std::memory_order_release);
    turn_.next.notify_all();
  }

  generator const& gen_;
  sink& out_;
  run_options const& options_;
  turn_word turn_;
  alignas(64) std::atomic<bool> stop_{false};
  std::atomic<unsigned> pinned_{0};
  std::mutex abort_mutex_;
  std::string abort_error_;  ///< guarded by abort_mutex_
  std::uint64_t bytes_ = 0;
  emit_status status_ = emit_status::ok;
  std::string error_;
};

}  // namespace

run_report run(generator const& gen, sink& out, run_options const& options) {
  return pipeline(gen, out, options).run();
}

}  // namespace fizzgen
