#include "engine/stream.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>

#include "engine/cpus.hpp"
#include "engine/idle_poll.hpp"
#include "engine/reuse_monitor.hpp"
#include "output/sink.hpp"

namespace fizzgen {
namespace {

bool is_pipe(int fd) {
  struct stat st {};
  return ::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

/// fd is a pipe or a socket: a reader on this machine may need a CPU.
bool has_reader(int fd, bool generate_only) {
  struct stat st {};
  return !generate_only && ::fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode));
}

/// The most workers that leave a reader a CPU of its own: one fewer than the CPUs, at least one.
unsigned workers_beside_reader() {
  auto const n = static_cast<unsigned>(allowed_cpus().size());
  return n <= 1 ? 1 : n - 1;
}

/// The default worker count, and the most that work: every CPU this process may use, except one
/// when fd is a pipe or a socket: then a reader (pv, a forwarder) needs a CPU of its own, and the
/// workers, one fewer, are pinned and poll the pipe. More take turns on a CPU, and the turn waits
/// whenever its holder is descheduled. Measured on 2 CPUs: into pv (bench/pipe_bench.sh, three
/// runs) 1 worker 31.4-32.0 GiB/s, 2 workers 20.9-21.4, 7 at 0.46x of 1; generate-only 4 workers
/// at 0.76-0.78x of 2.
unsigned most_workers(int fd, bool generate_only) {
  return has_reader(fd, generate_only) ? workers_beside_reader()
                                       : std::max<unsigned>(1, static_cast<unsigned>(allowed_cpus().size()));
}

/// The path --reuse auto took and why, for --stats.
std::string monitor_findings(reuse_monitor const& monitor, run_report const& report) {
  // In place when an epoch opened and buffers were rewritten in it, or the newest scan found the
  // readers safe (processes created elsewhere may have ended epochs: the findings follow, and
  // each worker says where its buffers went).
  std::uint64_t reused = report.helper.reused;  // the helper's buffers count as the workers' do
  for (worker_stats const& w : report.workers) reused += w.reused;
  bool const in_place = monitor.epochs() > 0 && (reused > 0 || monitor.readers_safe());
  std::string s = in_place ? " (in place: " + monitor.safe_why() : " (fresh pages: " + monitor.why();
  s += "; " + std::to_string(monitor.scans()) + " scans of /proc, " + std::to_string(monitor.rechecks()) +
       " re-checks (" + std::to_string(std::lround(monitor.recheck_seconds() * 1e3)) + " ms), " +
       std::to_string(monitor.epochs()) + " safe epochs";
  std::string ended;
  auto const breaks = monitor.breaks();
  for (std::size_t i = 0; i < breaks.size(); ++i)
    if (breaks[i] != 0)
      ended +=
          (ended.empty() ? "" : ", ") + std::string(to_string(static_cast<taint>(i))) + " " + std::to_string(breaks[i]);
  return s + (ended.empty() ? "" : "; unsafe findings: " + ended) + ")";
}

/// Whether idle CPUs should poll for this stream (engine/idle_poll.hpp), and if not, why not.
std::string why_no_idle_poll(int fd, stream_overrides const& o) {
  if (!o.idle_poll) return "not asked to poll (--idle-poll off)";
  if (!has_reader(fd, o.generate_only)) return "not asked to poll (no reader to wake: not a pipe or a socket)";
  if (o.rate || o.pauses.stall_every != 0 || o.pauses.burst_off.count() > 0)
    return "not asked to poll (a paced stream: --rate, --stall, --burst)";
  return "";
}

}  // namespace

stream_outcome run_stream(generator const& gen, int fd, stream_sizes const& sizes, stream_overrides const& o) {
  run_options options;
  // A constant stream costs only its syscalls, which one thread issues best: more would only wait.
  // A stored plan's thread count was measured into a pipe: files and terminals keep the default.
  options.threads = o.threads                           ? *o.threads
                    : sizes.threads != 0 && is_pipe(fd) ? sizes.threads
                    : gen.constant()                    ? 1
                                                        : most_workers(fd, o.generate_only);
  // Workers that leave the reader no CPU of its own wait for their turns while it runs: measured
  // on 2 CPUs into pv, 2 workers ran at 0.56x and 7 at 0.46x of one. So into a pipe or socket at
  // most one worker fewer than the CPUs works, elsewhere one a CPU, however many were asked for
  // (--stats says so).
  unsigned const asked = options.threads;
  if (!exact_threads()) options.threads = std::min(options.threads, most_workers(fd, o.generate_only));
  options.byte_limit = o.byte_limit;
  options.rate = o.rate;
  options.duration = o.duration;
  options.write_sizes = o.write_sizes;
  options.pauses = o.pauses;
  options.reuse = o.reuse;
  options.helper = o.helper;
  options.pipe_only = o.pipe_only;
  options.buffers_per_worker = o.buffers_per_worker.value_or(0);
  options.chunk_bytes = sizes.chunk_bytes;
  options.stop = o.stop;
  // The lines emitted are counted for every report: two relaxed adds a chunk by the turn holder.
  progress_counter own_count;
  options.progress = o.progress != nullptr ? o.progress : &own_count;
  // Pinned workers on every CPU leave the reader (pv...) no CPU of its own, and the scheduler can
  // no longer move a worker away from it: measured here, 2 workers pinned on 2 CPUs ran at half the
  // speed of the same workers unpinned. So pin only when a CPU stays free, or when nothing reads.
  std::size_t const cpus = allowed_cpus().size();
  options.pin = !o.no_pin && (o.generate_only || options.threads < cpus);
  options.alone = o.generate_only;
  // Polling a full pipe pays only when a core is left over for it besides the workers.
  bool const spin = options.threads < cpus;
  std::unique_ptr<sink> const out =
      o.generate_only ? make_null_sink() : open_sink(fd, sizes.pipe_bytes, spin, options.write_sizes.has_value());
  // Each worker's ring: the chunks emitted after a buffer must fill the pipe the kernel granted.
  if (options.buffers_per_worker == 0)
    options.buffers_per_worker =
        ring_buffers(std::max<std::size_t>(out->pipe_size(), sizes.chunk_bytes), sizes.chunk_bytes, options.threads,
                     options.reuse == reuse_policy::automatic ? sizes.recheck_refills : 0);
  // auto needs to know who reads the pipe; only a pipe that references our pages needs asking.
  // A constant stream (yes) never rewrites a buffer: nothing to decide.
  std::optional<reuse_monitor> monitor;
  if (options.reuse == reuse_policy::automatic && out->shares_pages() && !o.pipe_only && !gen.constant()) {
    monitor.emplace(fd, *out);
    options.monitor = &*monitor;
  }
  stream_outcome r;
  r.idle_poll_why = why_no_idle_poll(fd, o);
  std::optional<idle_poll_request> idle_poll;
  if (r.idle_poll_why.empty()) {
    idle_poll.emplace();
    r.idle_poll = idle_poll->held();
    r.idle_poll_why =
        r.idle_poll ? "polling while the stream ran (CPU latency limit 0 us, " + std::string(kCpuLatencyDevice) + ")"
                    : "not polling (" + idle_poll->why() + ")";
    // A helper on the reader's CPU keeps that CPU out of its polling idle state, and each wake-up of
    // the reader is an interrupt again: with the limit held, refilling in place, --helper on ran at
    // 0.70x of --helper off into pv -S here (docs/performance.md). So under --helper auto it starts
    // at rest and works only where its timed windows are faster (where the reader's CPU is woken
    // cheaply anyway, or the worker is slow); not under --reuse never, where it zeroes the fresh
    // pages of its chunks and pays (1.23x here).
    options.idle_polling = r.idle_poll;
    if (r.idle_poll && options.helper == helper_mode::automatic && options.reuse != reuse_policy::never)
      r.idle_poll_why += "; the helper beside the reader (--helper auto) starts at rest, works where measured faster";
  }
  if (o.on_start) o.on_start();

  r.threads_asked = asked;
  r.report = run(gen, *out, options);
  idle_poll.reset();  // the stream is over: idle CPUs may sleep again
  r.lines = options.progress->lines.load(std::memory_order_relaxed);
  r.output_path = std::string(out->path());
  r.pipe_size = out->pipe_size();
  r.spin = spin && out->pipe_size() > 0;
  r.reuse = out->shares_pages() ? std::string(to_string(options.reuse)) : "n/a (the output copies)";
  if (monitor) {
    r.reuse += monitor_findings(*monitor, r.report);
    // The stream is over: the reader sees its end now, not after the monitor's teardown (closing
    // its inotify descriptor waits for an RCU grace period, about 20 ms here).
    if (int const null = ::open("/dev/null", O_WRONLY | O_CLOEXEC); null >= 0) {
      ::dup2(null, fd);
      ::close(null);
    }
  }
  return r;
}

}  // namespace fizzgen
