#include "engine/signals.hpp"

#include <pthread.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <csignal>
#include <ctime>

namespace fizzgen {
namespace {

sigset_t handled_signals() noexcept {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

/// Sent by the destructor to the waiting thread, so that it stops at once rather than at its next
/// timeout (which every run's exit would otherwise wait for). Blocked in every thread: never
/// delivered, only taken by sigtimedwait.
int wake_signal() noexcept { return SIGRTMIN; }

/// Ends the process with sig's default action.
[[noreturn]] void die_of(int sig) noexcept {
  std::signal(sig, SIG_DFL);
  sigset_t const set = handled_signals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
  ::kill(::getpid(), sig);
  ::_exit(128 + sig);  // not reached: the default action of these signals terminates
}

constexpr auto kGrace = std::chrono::milliseconds(500);  // for the workers to stop on their own

}  // namespace

signal_guard::signal_guard() {
  sigset_t set = handled_signals();
  sigaddset(&set, wake_signal());
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::jthread([this](std::stop_token stop) { wait_loop(stop); });
}

signal_guard::~signal_guard() {
  thread_.request_stop();
  pthread_kill(thread_.native_handle(), wake_signal());  // a thread that already returned ignores it
  thread_.join();
  sigset_t const set = handled_signals();
  pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

void signal_guard::wait_loop(std::stop_token stop) {
  sigset_t set = handled_signals();
  sigaddset(&set, wake_signal());
  timespec const tick{1, 0};  // the wake signal ends the wait; the timeout only backs it up
  while (!stop.stop_requested()) {
    int const sig = sigtimedwait(&set, nullptr, &tick);
    if (sig <= 0 || sig == wake_signal()) continue;  // timeout, EINTR, or the destructor
    received_.store(sig, std::memory_order_release);
    source_.request_stop();
    std::unique_lock lock(mutex_);
    if (!done_cv_.wait_for(lock, kGrace, [this] { return done_; })) die_of(sig);
    return;
  }
}

void signal_guard::finish() noexcept {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  done_cv_.notify_all();
  if (int const sig = received(); sig != 0) die_of(sig);
}

}  // namespace fizzgen
