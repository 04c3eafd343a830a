#pragma once
// Shared by every test that drives the real fizzgen binary through the shell (end to end, Morse end
// to end, measuring, the consumer matrix, the failure tests): runs bash pipelines, each test in
// its own temporary directory, every command under a deadline after which its whole process group
// is killed (a hang fails, it never blocks CI).
//
// Environment of every command: $F is fizzgen (the build's, or the binary named by the environment
// variable FIZZGEN_TEST_BINARY when set: to run the tests against another build, such as an older
// one that a new test must fail on); where the test target defines them, $RC read_copy,
// $SF splice_forwarder, $TF tee_forwarder, $SX socket_exec, $PX pty_exec, $NX no_thp_exec,
// $PR park_reader, $PG pipe_grabber, $SD send_fd, $UF unshared_forwarder (tests/tools/).
// Descriptors above 2 are closed, so no pipe inherited from the test runner (ctest, a CI
// supervisor) takes part. Every command can wait for an event instead of sleeping (kShellWaits).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#ifndef FIZZGEN_BINARY
#error "FIZZGEN_BINARY must name the fizzgen binary under test"
#endif

namespace fizzgen_test {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

#ifdef FIZZGEN_TESTS_SANITIZED
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif

inline std::string read_file(fs::path const& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_file(fs::path const& p, std::string const& s) {
  std::ofstream out(p, std::ios::binary);
  out << s;
}

inline std::size_t count_lines(std::string const& s) {
  std::size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// "256M", "16M", "1G", "4096": bytes (K, M, G = 1024^n); nullopt when malformed.
inline std::optional<std::uint64_t> parse_size(std::string const& text) {
  if (text.empty()) return std::nullopt;
  std::size_t used = 0;
  std::uint64_t v = 0;
  try {
    v = std::stoull(text, &used);
  } catch (...) {
    return std::nullopt;
  }
  std::string const suffix = text.substr(used);
  if (suffix == "K" || suffix == "k") return v << 10;
  if (suffix == "M" || suffix == "m") return v << 20;
  if (suffix == "G" || suffix == "g") return v << 30;
  if (suffix.empty()) return v;
  return std::nullopt;
}

/// Bytes per fizzgen run of the matrix: FIZZGEN_MATRIX_BYTES, else 256 MiB (16 MiB under the
/// sanitizers, which slow every byte down).
inline std::uint64_t matrix_bytes() {
  if (char const* v = std::getenv("FIZZGEN_MATRIX_BYTES"); v != nullptr && *v != '\0') {
    if (auto const n = parse_size(v); n && *n > 0) return *n;
    ADD_FAILURE() << "FIZZGEN_MATRIX_BYTES=" << v << " is not a size like 256M";
  }
  return kSanitized ? std::uint64_t{16} << 20 : std::uint64_t{256} << 20;
}

/// Deadlines stretch under the sanitizers.
inline std::chrono::seconds scaled(std::chrono::seconds s) { return kSanitized ? 4 * s : s; }

/// Shell functions defined for every command, to wait for an event rather than sleep:
///   wait_for SECONDS COMMAND...  runs COMMAND every 10 ms until it succeeds; after SECONDS it
///                                says on stderr what did not happen, and fails
///   has_read PID BYTES           PID's read(2) calls have returned BYTES or more (rchar in /proc/PID/io)
///   threads_at_least PID N       PID runs N threads or more (/proc/PID/task)
///   has_children PID             PID has started a child process (/proc/PID/task/*/children)
///   gone PID                     PID has ended
inline constexpr char const* kShellWaits = R"sh(wait_for() {
  local deadline=$(( ${EPOCHREALTIME/[.,]/} + $1 * 1000000 )); shift
  until "$@"; do
    if (( ${EPOCHREALTIME/[.,]/} > deadline )); then echo "wait_for: '$*' did not happen" >&2; return 1; fi
    sleep 0.01
  done
}
has_read() {
  local key value
  while read -r key value; do [ "$key" = rchar: ] && return $(( value < $2 )); done 2>/dev/null </proc/$1/io
  return 1
}
threads_at_least() { local tasks=(/proc/$1/task/*); [ -e "${tasks[0]}" ] && (( ${#tasks[@]} >= $2 )); }
has_children() { [ -n "$(cat /proc/$1/task/*/children 2>/dev/null)" ]; }
gone() { ! kill -0 "$1" 2>/dev/null; }
)sh";

struct outcome {
  int status = -1;  ///< exit status of bash (128 + signal if it was killed)
  bool timed_out = false;
  double seconds = 0;
  std::string out, err;
};

/// The numbers of a `--json FILE` statistics report that the tests look at.
struct stats_json {
  bool parsed = false;
  std::uint64_t bytes = 0;
  std::uint64_t pipe_size = 0;
  std::uint64_t huge_pages_kb = 0;
  std::string output_path, reuse, status;
  std::vector<int> cpus;                    ///< per worker, -1 when not pinned
  std::uint64_t reused = 0, discarded = 0;  ///< summed over the workers and the helper
};

/// A JSON report (`--json FILE`, `sink --json`, `bench --json`) parsed; an empty object when the
/// text is not one.
inline nlohmann::ordered_json parse_json(std::string const& text) {
  auto doc = nlohmann::ordered_json::parse(text, nullptr, false);
  return doc.is_object() ? doc : nlohmann::ordered_json::object();
}

/// A number member of a JSON report, `fallback` when absent or not a number.
inline double json_number(std::string const& text, std::string const& key, double fallback = 0) {
  auto const doc = parse_json(text);
  auto const it = doc.find(key);
  return it != doc.end() && it->is_number() ? it->get<double>() : fallback;
}

/// A string member of a JSON report, "" when absent or not a string.
inline std::string json_string(std::string const& text, std::string const& key) {
  auto const doc = parse_json(text);
  auto const it = doc.find(key);
  return it != doc.end() && it->is_string() ? it->get<std::string>() : std::string();
}

inline stats_json parse_stats_json(std::string const& text) {
  stats_json s;
  auto const doc = parse_json(text);
  if (!doc.contains("bytes")) return s;
  s.parsed = true;
  s.bytes = doc.value("bytes", std::uint64_t{0});
  s.pipe_size = doc.value("pipe_size", std::uint64_t{0});
  s.huge_pages_kb = doc.value("huge_pages_kb", std::uint64_t{0});
  s.output_path = doc.value("output_path", "");
  s.reuse = doc.value("reuse", "");
  s.status = doc.value("status", "");
  for (auto const& w : doc.value("workers", nlohmann::ordered_json::array())) {
    s.cpus.push_back(w.value("cpu", -1));
    s.reused += w.value("reused", std::uint64_t{0});
    s.discarded += w.value("discarded", std::uint64_t{0});
  }
  // The helper on the reader's CPU refills buffers of its own: they count the same.
  if (auto const h = doc.find("helper"); h != doc.end() && h->is_object()) {
    s.reused += h->value("reused", std::uint64_t{0});
  }
  return s;
}

/// `fizzgen check` printed OK for exactly `bytes` bytes.
inline ::testing::AssertionResult check_ok(std::string const& out, std::uint64_t bytes) {
  if (out.find("OK: ") == std::string::npos) return ::testing::AssertionFailure() << "check did not say OK: " << out;
  std::string needle(" ");  // appended piecewise: GCC 12 warns (-Wrestrict) on " " + to_string(...)
  needle += std::to_string(bytes);
  needle += " bytes";
  if (out.find(needle) == std::string::npos)
    return ::testing::AssertionFailure() << "check did not count " << bytes << " bytes: " << out;
  return ::testing::AssertionSuccess();
}

/// Each test gets a fresh directory; commands run there through bash.
class pipeline_test : public ::testing::Test {
 protected:
  void SetUp() override {
    char const* tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/fizzgen_test_XXXXXX";
    ASSERT_NE(::mkdtemp(templ.data()), nullptr);
    dir_ = templ;
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  /// Runs `cmd` with bash in the test directory, stdin from /dev/null (unless the command
  /// redirects it), stdout and stderr captured in files. The whole process group is killed after
  /// `limit`, and again at the end in case the pipeline left stragglers behind.
  outcome sh(std::string const& cmd, std::chrono::seconds limit = 30s) {
    fs::path const out = dir_ / ".stdout", err = dir_ / ".stderr";
    auto const start = std::chrono::steady_clock::now();
    pid_t const pid = ::fork();
    if (pid == 0) {
      ::setpgid(0, 0);
      int const in_fd = ::open("/dev/null", O_RDONLY);
      int const out_fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int const err_fd = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (in_fd < 0 || out_fd < 0 || err_fd < 0 || ::chdir(dir_.c_str()) != 0) ::_exit(127);
      ::dup2(in_fd, 0);
      ::dup2(out_fd, 1);
      ::dup2(err_fd, 2);
      ::close_range(3, ~0u, 0);
      // Default dispositions and an empty mask, as from a terminal (the runner may ignore some).
      for (int sig : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGXFSZ}) ::signal(sig, SIG_DFL);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      char const* const binary = std::getenv("FIZZGEN_TEST_BINARY");
      ::setenv("F", binary != nullptr && *binary != '\0' ? binary : FIZZGEN_BINARY, 1);
      // A plan stored by `fizzgen tune` on this machine must not change what the tests run.
      ::setenv("FIZZGEN_PLAN", "", 1);
      // Every worker asked for runs, so that the hand-off between workers is tested on few CPUs.
      ::setenv("FIZZGEN_EXACT_THREADS", "1", 1);
#ifdef FIZZGEN_READ_COPY  // the helper tools: defined together, for the consumer tests
      ::setenv("RC", FIZZGEN_READ_COPY, 1);
      ::setenv("SF", FIZZGEN_SPLICE_FORWARDER, 1);
      ::setenv("TF", FIZZGEN_TEE_FORWARDER, 1);
      ::setenv("SX", FIZZGEN_SOCKET_EXEC, 1);
      ::setenv("PX", FIZZGEN_PTY_EXEC, 1);
      ::setenv("NX", FIZZGEN_NO_THP_EXEC, 1);
      ::setenv("PR", FIZZGEN_PARK_READER, 1);
      ::setenv("PG", FIZZGEN_PIPE_GRABBER, 1);
      ::setenv("SD", FIZZGEN_SEND_FD, 1);
      ::setenv("UF", FIZZGEN_UNSHARED_FORWARDER, 1);
#endif
      ::unsetenv("FIZZGEN_POISON");
      ::unsetenv("FIZZGEN_ARCH");
      std::string const script = kShellWaits + cmd;
      ::execl("/bin/bash", "bash", "-c", script.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
    outcome o;
    if (pid < 0) {
      ADD_FAILURE() << "fork failed";
      return o;
    }
    ::setpgid(pid, pid);  // also from here, so the kill below cannot race the child's own call
    // The child's end is an event: its pidfd turns readable (polled for 2 ms where there is none).
    int const pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
    int wstatus = 0;
    for (;;) {
      pid_t const r = ::waitpid(pid, &wstatus, WNOHANG);
      if (r == pid) break;
      auto const left = limit - (std::chrono::steady_clock::now() - start);
      if (left <= 0s) {
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, &wstatus, 0);
        o.timed_out = true;
        break;
      }
      pollfd ended{pidfd, POLLIN, 0};
      auto const ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
      if (pidfd < 0 || ::poll(&ended, 1, static_cast<int>(std::min<decltype(ms)>(ms, 1000))) < 0)
        std::this_thread::sleep_for(2ms);
    }
    if (pidfd >= 0) ::close(pidfd);
    ::kill(-pid, SIGKILL);  // stragglers of the pipeline, if any
    o.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    o.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : 128 + WTERMSIG(wstatus);
    o.out = read_file(out);
    o.err = read_file(err);
    EXPECT_FALSE(o.timed_out) << "timed out after " << limit.count() << "s: " << cmd;
    return o;
  }

  /// Runs cmd and expects it to succeed quietly; its standard output.
  std::string ok(std::string const& cmd, std::chrono::seconds limit = 30s) {
    outcome const o = sh(cmd, limit);
    EXPECT_EQ(o.status, 0) << cmd << "\nstderr: " << o.err;
    EXPECT_EQ(o.err, "") << cmd;
    return o.out;
  }

  fs::path path(std::string const& name) const { return dir_ / name; }
  std::string file(std::string const& name) const { return read_file(dir_ / name); }

  fs::path dir_;
};

}  // namespace fizzgen_test
