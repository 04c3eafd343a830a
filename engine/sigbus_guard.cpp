#include "engine/sigbus_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>

namespace fizzgen {
namespace {

// The handler reads these: lock-free atomics, the only state a signal handler may touch.
std::atomic<bool> g_claimed{false};
std::atomic<std::uintptr_t> g_begin{0}, g_end{0};
std::atomic<bool> g_truncated{false};
struct sigaction g_previous {};

void on_sigbus(int /*sig*/, siginfo_t* info, void* /*context*/) {
  auto const addr = reinterpret_cast<std::uintptr_t>(info->si_addr);
  std::uintptr_t const begin = g_begin.load(std::memory_order_acquire);
  std::uintptr_t const end = g_end.load(std::memory_order_acquire);
  if (begin != 0 && addr >= begin && addr < end) {
    auto const page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    std::uintptr_t const from = addr - addr % page;
    // Zero pages over the rest of the range: this load and every later one past the cut read
    // zeros instead of faulting again (one fault per truncation, not one per page).
    void* const p =
        ::mmap(reinterpret_cast<void*>(from), end - from, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (p != MAP_FAILED) {
      g_truncated.store(true, std::memory_order_release);  // pairs with the acquire in truncated()
      return;
    }
  }
  // Not our range (a real bug), or no way to recover: the previous disposition takes the fault,
  // which happens again as soon as this handler returns.
  ::sigaction(SIGBUS, &g_previous, nullptr);
}

}  // namespace

bool sigbus_guard::arm(void const* base, std::size_t length) noexcept {
  if (armed_ || g_claimed.exchange(true, std::memory_order_acq_rel)) return false;
  auto const page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
  auto const begin = reinterpret_cast<std::uintptr_t>(base);
  // The kernel maps whole pages: the range ends where the mapping does, at a page boundary.
  g_end.store(begin + (length + page - 1) / page * page, std::memory_order_relaxed);
  g_truncated.store(false, std::memory_order_relaxed);
  g_begin.store(begin, std::memory_order_release);  // pairs with the handler's acquire
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  if (::sigaction(SIGBUS, &sa, &g_previous) != 0) {
    g_begin.store(0, std::memory_order_release);
    g_claimed.store(false, std::memory_order_release);
    return false;
  }
  armed_ = true;
  return true;
}

void sigbus_guard::disarm() noexcept {
  if (!armed_) return;
  ::sigaction(SIGBUS, &g_previous, nullptr);
  g_begin.store(0, std::memory_order_release);
  g_claimed.store(false, std::memory_order_release);  // pairs with the exchange in arm()
  armed_ = false;
}

bool sigbus_guard::truncated() const noexcept { return armed_ && g_truncated.load(std::memory_order_acquire); }

}  // namespace fizzgen
