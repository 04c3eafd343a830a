#include "cli/bench_child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace fizzgen::cli::bench {
namespace {

using clock_type = std::chrono::steady_clock;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

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
    if (!timed_out && clock_type::now() > deadline) {
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

double json_number(std::string const& text, std::string const& key, double fallback) {
  std::string const needle = "\"" + key + "\": ";
  std::size_t const at = text.find(needle);
  if (at == std::string::npos) return fallback;
  char const* start = text.c_str() + at + needle.size();
  char* end = nullptr;
  double const v = std::strtod(start, &end);
  return end == start ? fallback : v;
}

std::string self_exe() {
  std::error_code ec;
  auto const p = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? "/proc/self/exe" : p.string();
}

std::string make_run_dir(std::string const& prefix) {
  char const* tmp = std::getenv("TMPDIR");
  std::string dir = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + prefix + "_XXXXXX";
  if (::mkdtemp(dir.data()) == nullptr) throw std::runtime_error("cannot create a directory in " + dir);
  return dir;
}

double median_of(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  std::size_t const n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double json_sum(std::string const& text, std::string const& key) {
  std::string const needle = "\"" + key + "\": ";
  double sum = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    sum += std::strtod(text.c_str() + at + needle.size(), nullptr);
  return sum;
}

std::string json_string(std::string const& text, std::string const& key) {
  std::string const needle = "\"" + key + "\": \"";
  std::size_t at = text.find(needle);
  if (at == std::string::npos) return "";
  std::string out;
  for (at += needle.size(); at < text.size() && text[at] != '"'; ++at) {
    if (text[at] == '\\' && at + 1 < text.size()) ++at;
    out += text[at];
  }
  return out;
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
                                    "--stats-json",
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

  std::string const s = slurp(stats);
  if (timed_out) {
    r.error = "timed out after " + std::to_string(limit.count()) + " s";
  } else if (statuses.back() != 0 || s.empty()) {
    std::string e = slurp(err);
    if (std::size_t const nl = e.find('\n'); nl != std::string::npos) e.resize(nl);
    r.error = "fizzgen exited with " + std::to_string(statuses.back()) + (e.empty() ? "" : ": " + e);
  } else if (piped && statuses.front() != 0) {
    r.error = "fizzgen sink exited with " + std::to_string(statuses.front());
  } else {
    r.ok = true;
  }
  auto const produced = static_cast<std::uint64_t>(json_number(s, "bytes"));
  if (r.ok && produced != bytes) {
    r.ok = false;
    r.error = "fizzgen wrote " + std::to_string(produced) + " bytes, not " + std::to_string(bytes);
  }
  r.gib_per_second = json_number(s, "gib_per_second");
  r.wall_gib_per_second = wall > 0 ? static_cast<double>(produced) / kGiB / wall : 0;
  r.fill_seconds = json_sum(s, "fill_seconds");
  r.wait_seconds = json_sum(s, "wait_seconds");
  r.emit_seconds = json_sum(s, "emit_seconds");
  r.output_path = json_string(s, "output_path");
  r.reuse = json_string(s, "reuse");
  r.pipe_size_granted = static_cast<std::size_t>(json_number(s, "pipe_size"));
  r.pinned = static_cast<unsigned>(json_number(s, "pinned"));
  if (piped) {
    std::string const j = slurp(sink_json);
    r.consumer_gib_per_second = json_number(j, "gib_per_second");
    if (r.ok && static_cast<std::uint64_t>(json_number(j, "bytes")) != bytes) {
      r.ok = false;
      r.error = "fizzgen sink read " + std::to_string(static_cast<std::uint64_t>(json_number(j, "bytes"))) +
                " bytes, not " + std::to_string(bytes);
    }
  }
  return r;
}

}  // namespace fizzgen::cli::bench
