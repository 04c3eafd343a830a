#pragma once
// Idle CPUs that poll while a stream runs: the kernel's CPU latency limit (PM QoS), asked for
// through /dev/cpu_dma_latency and held while the descriptor stays open.
//
// Into a pipe, the reader (pv) drains a chunk faster than a worker fills the next, so it sleeps on
// the empty pipe between chunks and every chunk has to wake it. Where its CPU then goes idle in a
// halt (a KVM guest whose idle driver does not poll first), the wake-up is an interrupt to a
// halted virtual CPU, and the worker's next vmsplice waits out the reader's late start: on the
// Intel Xeon VM of docs/performance.md (2 vCPUs, cpuidle "haltpoll" with
// haltpoll.guest_halt_poll_ns=0) the worker spent 12 us in vmsplice per 512 KiB chunk against 6
// with the pipe kept full. With a limit of 0 us cpuidle keeps idle CPUs in its polling state, a
// wake-up is a flag the polling CPU sees at once, and the default stream into pv took 0.69-0.80
// of the time there (docs/performance.md). The limit is the whole system's (every idle CPU polls
// while it is held), so it is held only while a stream that has a reader to wake runs, never for
// paced streams, and the kernel drops it when the process ends, however it ends.

#include <string>

namespace fizzgen {

inline constexpr char const* kCpuLatencyDevice = "/dev/cpu_dma_latency";

class idle_poll_request {
 public:
  /// Asks for a CPU latency limit of 0 us through `device` (a character device; writable by root
  /// only, unless the system grants it). held() says whether it took, why() what stood in the way.
  explicit idle_poll_request(char const* device = kCpuLatencyDevice);
  ~idle_poll_request();
  idle_poll_request(idle_poll_request const&) = delete;
  idle_poll_request& operator=(idle_poll_request const&) = delete;

  bool held() const noexcept { return fd_ >= 0; }
  /// Why it is not held: "/dev/cpu_dma_latency: Permission denied"; empty when held.
  std::string const& why() const noexcept { return why_; }

 private:
  int fd_ = -1;
  std::string why_;
};

}  // namespace fizzgen
