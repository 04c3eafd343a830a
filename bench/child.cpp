#include "bench/child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace fizzgen::bench {
namespace {

using clock_type = std::chrono::steady_clock;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
constexpr int kStopSignals[3] = {SIGINT, SIGTERM, SIGHUP};

volatile std::sig_atomic_t g_received = 0;
extern "C" void on_stop_signal(int signo) { g_received = signo; }

std::string slurp(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

/// posix_spawn of argv with fds in, out and err as 0, 1 and 2, and no other fd; -1 on failure.
/// Only these three: the reuse monitor of a producer judges its readers by the fds they hold, and a
/// pipe inherited from whatever started the bench (a job-control pipe, say) would make a sink look
/// like a reader that could forward pages.
pid_t spawn(std::vector<std::string> const& args, int in, int out, int err) {
  std::vector<char*> argv;
  argv.reserve(args.size() + 1);
  for (auto const& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  posix_spawn_file_actions_addclosefrom_np(&actions, 3);
  // Children get the default SIGPIPE (fizzgen ignores it for itself and sets it back).
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t defaults;
  sigemptyset(&defaults);
  sigaddset(&defaults, SIGPIPE);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
  pid_t pid = -1;
  int const rc = posix_spawn(&pid, argv[0], &actions, &attr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  return rc == 0 ? pid : -1;
}

/// Waits for every pid until `deadline`; kills the rest after it. Returns the exit statuses
/// (128 + signal for a signal) and whether the deadline passed.
bool wait_all(std::vector<pid_t> const& pids, std::vector<int>& statuses, clock_type::time_point deadline) {
  statuses.assign(pids.size(), -1);
  std::size_t left = pids.size();
  bool timed_out = false;
  while (left > 0) {
    for (std::size_t i = 0; i < pids.size(); ++i) {
      if (statuses[i] != -1) continue;
      int ws = 0;
      pid_t const r = ::waitpid(pids[i], &ws, timed_out ? 0 : WNOHANG);
      if (r == pids[i] || (r < 0 && errno != EINTR)) {
        statuses[i] = r < 0 ? 127 : WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        --left;
      }
    }
    if (left == 0) break;
    if (!timed_out && (clock_type::now() > deadline || g_received != 0)) {
      timed_out = true;
      for (std::size_t i = 0; i < pids.size(); ++i)
        if (statuses[i] == -1) ::kill(pids[i], SIGKILL);
      continue;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  return timed_out;
}

}  // namespace

char const* to_string(measurement m) noexcept {
  switch (m) {
    case measurement::generate_only:
      return "generate-only";
    case measurement::pipe_only:
      return "pipe-only";
    case measurement::end_to_end:
      return "end-to-end";
  }
  return "?";
}

std::string self_exe() {
  std::error_code ec;
  auto const p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "/proc/self/exe" : p.string();
}

interrupt_guard::interrupt_guard() {
  g_received = 0;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  for (std::size_t i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &sa, &old_[i]);
}

interrupt_guard::~interrupt_guard() {
  for (std::size_t i = 0; i < 3; ++i) ::sigaction(kStopSignals[i], &old_[i], nullptr);
}

int interrupt_guard::received() noexcept { return g_received; }

void interrupt_guard::finish() noexcept {
  int const signo = g_received;
  if (signo == 0) return;
  std::signal(signo, SIG_DFL);
  std::raise(signo);
}

run_dir::run_dir(std::string const& prefix) {
  char const* tmp = std::getenv("TMPDIR");
  path_ = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "_XXXXXX";
  if (::mkdtemp(path_.data()) == nullptr) throw std::runtime_error("cannot create a directory in " + path_);
}

run_dir::~run_dir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t const n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

run_result run_once(std::string const& exe, config const& c, std::uint64_t bytes, std::string const& dir,
                    std::chrono::seconds limit) {
  run_result r;
  std::string const stats = dir + "/stats.json", sink_json = dir + "/sink.json", err = dir + "/stderr";
  std::remove(stats.c_str());
  std::remove(sink_json.c_str());
  std::vector<std::string> producer{exe,
                                    "--bytes",
                                    std::to_string(bytes),
                                    "--threads",
                                    std::to_string(c.threads),
                                    "--pipe-size",
                                    std::to_string(c.pipe_size),
                                    "--chunk-bytes",
                                    std::to_string(c.chunk_bytes),
                                    "--json",
                                    stats};
  if (c.what == measurement::generate_only) producer.push_back("--generate-only");
  if (c.what == measurement::pipe_only) producer.push_back("--pipe-only");
  if (c.progress) producer.push_back("--progress=force");

  int const null_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  int const null_out = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  int const err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int const json_fd = ::open(sink_json.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  int fds[2] = {-1, -1};
  bool const piped = c.what != measurement::generate_only;
  std::vector<pid_t> pids;
  auto const start = clock_type::now();
  if (null_in >= 0 && null_out >= 0 && err_fd >= 0 && json_fd >= 0 && (!piped || ::pipe2(fds, O_CLOEXEC) == 0)) {
    if (piped) {
      // The consumer first, so that it is reading when the producer inspects its readers.
      std::vector<std::string> const consumer{exe, "sink", "--" + c.consumer, "--json", "--quiet"};
      if (pid_t const p = spawn(consumer, fds[0], json_fd, null_out); p > 0) pids.push_back(p);
    }
    if (!piped || !pids.empty())
      if (pid_t const p = spawn(producer, null_in, piped ? fds[1] : null_out, err_fd); p > 0) pids.push_back(p);
  }
  for (int fd : {fds[0], fds[1], null_in, null_out, err_fd, json_fd})
    if (fd >= 0) ::close(fd);
  std::vector<int> statuses;
  if (pids.size() != (piped ? 2u : 1u)) {
    wait_all(pids, statuses, start + limit);
    r.error = "cannot start " + exe;
    return r;
  }
  bool const timed_out = wait_all(pids, statuses, start + limit);
  double const wall = std::chrono::duration<double>(clock_type::now() - start).count();

  // The reports, parsed; a missing or broken one reads as empty (and fails the run below).
  auto const parsed = [](std::string const& path) {
    json doc = json::parse(slurp(path), nullptr, false);
    return doc.is_object() ? doc : json::object();
  };
  json const s = parsed(stats);
  if (timed_out) {
    r.error = g_received != 0 ? "interrupted" : "timed out after " + std::to_string(limit.count()) + " s";
  } else if (statuses.back() != 0 || s.empty()) {
    std::string e = slurp(err);
    if (std::size_t const nl = e.find('\n'); nl != std::string::npos) e.resize(nl);
    r.error = "fizzgen exited with " + std::to_string(statuses.back()) + (e.empty() ? "" : ": " + e);
  } else if (piped && statuses.front() != 0) {
    r.error = "fizzgen sink exited with " + std::to_string(statuses.front());
  } else {
    r.ok = true;
  }
  auto const produced = s.value("bytes", std::uint64_t{0});
  if (r.ok && produced != bytes) {
    r.ok = false;
    r.error = "fizzgen wrote " + std::to_string(produced) + " bytes, not " + std::to_string(bytes);
  }
  r.gib_per_second = s.value("gib_per_second", 0.0);
  r.wall_gib_per_second = wall > 0 ? static_cast<double>(produced) / kGiB / wall : 0;
  for (json const& w : s.value("workers", json::array())) {
    r.fill_seconds += w.value("fill_seconds", 0.0);
    r.wait_seconds += w.value("wait_seconds", 0.0);
    r.emit_seconds += w.value("emit_seconds", 0.0);
  }
  r.output_path = s.value("output_path", "");
  r.reuse = s.value("reuse", "");
  r.pipe_size_granted = s.value("pipe_size", std::size_t{0});
  r.pinned = s.value("pinned", 0u);
  if (piped) {
    json const j = parsed(sink_json);
    r.consumer_gib_per_second = j.value("gib_per_second", 0.0);
    if (auto const read = j.value("bytes", std::uint64_t{0}); r.ok && read != bytes) {
      r.ok = false;
      r.error = "fizzgen sink read " + std::to_string(read) + " bytes, not " + std::to_string(bytes);
    }
  }
  return r;
}

}  // namespace fizzgen::bench
