// The output sinks through the syscall seam: injected EINTR, short writes, EAGAIN, EPIPE and ENOSPC
// on write(2) and vmsplice(2); which sink open_sink picks for what fd, and the fds it refuses.

#include "output/sink.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "output/probe.hpp"
#include "output/sys.hpp"
#include "vmsplice_probe.hpp"

namespace {

namespace sys = fizzgen::sys;
using fizzgen::emit_status;

/// Restores the real syscall table when the test ends, whatever happened.
class table_guard {
 public:
  table_guard() = default;
  ~table_guard() { sys::table() = sys::real(); }
  table_guard(table_guard const&) = delete;
  table_guard& operator=(table_guard const&) = delete;
};

/// What the fakes do; plain globals because the table holds function pointers, not closures.
struct script {
  int fail_first = 0;         ///< calls that fail with `err` before any succeeds
  int err = 0;                ///< errno for those failures
  bool alternate = false;     ///< after fail_first: every other call fails with err
  std::size_t max_chunk = 0;  ///< > 0: pass at most this many bytes per call on (short writes)
  int calls = 0;
  int polls = 0;
};
script g_script;

bool should_fail() {
  int const call = g_script.calls++;
  if (call < g_script.fail_first) return true;
  return g_script.alternate && (call - g_script.fail_first) % 2 == 0;
}

ssize_t fake_write(int fd, void const* buf, std::size_t len) {
  if (should_fail()) {
    errno = g_script.err;
    return -1;
  }
  if (g_script.max_chunk != 0 && len > g_script.max_chunk) len = g_script.max_chunk;
  return sys::real().write(fd, buf, len);
}

ssize_t fake_vmsplice(int fd, iovec const* iov, unsigned long n, unsigned flags) {
  if (should_fail()) {
    errno = g_script.err;
    return -1;
  }
  if (g_script.max_chunk != 0 && n >= 1 && iov[0].iov_len > g_script.max_chunk) {
    iovec shorter{iov[0].iov_base, g_script.max_chunk};
    return sys::real().vmsplice(fd, &shorter, 1, flags);
  }
  return sys::real().vmsplice(fd, iov, n, flags);
}

int fake_poll_out(int) {
  ++g_script.polls;
  return 1;
}

int failing_poll_out(int) {
  ++g_script.polls;
  errno = EINVAL;
  return -1;
}

int eperm_setpipe_fcntl(int fd, int cmd, int arg) {
  if (cmd == F_SETPIPE_SZ) {
    errno = EPERM;
    return -1;
  }
  return sys::real().fcntl(fd, cmd, arg);
}

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 26) % 26);
  return s;
}

std::span<std::byte const> bytes_of(std::string const& s) {
  return {reinterpret_cast<std::byte const*>(s.data()), s.size()};
}

/// A temporary file, read back whole.
class temp_file {
 public:
  temp_file() {
    char const* dir = std::getenv("TMPDIR");
    path_ = std::string(dir && *dir ? dir : "/tmp") + "/fizzgen_sink_test_XXXXXX";
    fd_ = ::mkstemp(path_.data());
    if (fd_ < 0) throw std::runtime_error("mkstemp failed");
  }
  ~temp_file() {
    if (fd_ >= 0) ::close(fd_);
    ::unlink(path_.c_str());
  }
  temp_file(temp_file const&) = delete;
  temp_file& operator=(temp_file const&) = delete;
  int fd() const { return fd_; }
  std::string const& path() const { return path_; }
  std::string contents() const {
    std::string out;
    int const fd = ::open(path_.c_str(), O_RDONLY);
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
    return out;
  }

 private:
  std::string path_;
  int fd_ = -1;
};

/// A pipe whose read end is drained into a string by a thread until the write end closes.
class drained_pipe {
 public:
  /// Reads up to `read_size` bytes at a time, sleeping `pause` before each read (a slow reader).
  explicit drained_pipe(std::size_t read_size = 65536, std::chrono::microseconds pause = {}) {
    if (::pipe(fds_) != 0) throw std::runtime_error("pipe failed");
    reader_ = std::thread([this, read_size, pause] {
      std::vector<char> buf(read_size);
      for (;;) {
        if (pause.count() > 0) std::this_thread::sleep_for(pause);
        ssize_t const n = ::read(fds_[0], buf.data(), buf.size());
        if (n <= 0) break;
        data_.append(buf.data(), static_cast<std::size_t>(n));
      }
    });
  }
  ~drained_pipe() {
    close_write();
    if (reader_.joinable()) reader_.join();
    ::close(fds_[0]);
  }
  drained_pipe(drained_pipe const&) = delete;
  drained_pipe& operator=(drained_pipe const&) = delete;
  int write_fd() const { return fds_[1]; }
  void close_write() {
    if (fds_[1] >= 0) ::close(fds_[1]);
    fds_[1] = -1;
  }
  /// Closes the write end and returns everything read.
  std::string finish() {
    close_write();
    reader_.join();
    return data_;
  }

 private:
  int fds_[2] = {-1, -1};
  std::thread reader_;
  std::string data_;
};

class Sink : public ::testing::Test {
 protected:
  void SetUp() override { g_script = script{}; }
  table_guard guard_;
};

// ---- which sink for what ------------------------------------------------------------------------

TEST_F(Sink, TempFileGetsWrite) {
  temp_file f;
  auto s = fizzgen::open_sink(f.fd());
  EXPECT_EQ(s->path(), "write");
  EXPECT_EQ(s->pipe_size(), 0u);
  EXPECT_FALSE(s->shares_pages());
  std::string const data = pattern(100000);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(f.contents(), data + data);
  EXPECT_TRUE(s->error().empty());
}

TEST_F(Sink, AppendFileGetsWrite) {
  temp_file f;
  ASSERT_EQ(::write(f.fd(), "head\n", 5), 5);
  int const fd = ::open(f.path().c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  {
    auto s = fizzgen::open_sink(fd);
    EXPECT_EQ(s->path(), "write");
    EXPECT_EQ(s->emit(bytes_of("tail\n")), emit_status::ok);
  }
  ::close(fd);
  EXPECT_EQ(f.contents(), "head\ntail\n");
}

TEST_F(Sink, DevNullIsNotAPipe) {
  int const fd = ::open("/dev/null", O_WRONLY);
  ASSERT_GE(fd, 0);
  auto s = fizzgen::open_sink(fd);
  EXPECT_NE(s->path(), "vmsplice");
  EXPECT_EQ(s->pipe_size(), 0u);
  EXPECT_EQ(s->emit(bytes_of(pattern(5000))), emit_status::ok);
  ::close(fd);
}

TEST_F(Sink, PipeGetsVmsplice) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  drained_pipe p;
  auto s = fizzgen::open_sink(p.write_fd());
  EXPECT_EQ(s->path(), "vmsplice");
  EXPECT_GT(s->pipe_size(), 0u);
  EXPECT_EQ(s->pipe_size() % 4096, 0u);
  EXPECT_EQ(s->shares_pages(), fizzgen::probe_vmsplice() == fizzgen::vmsplice_kind::shares);
  // The sink never changes the pipe's size after it was opened: what it reports is what it has.
  EXPECT_EQ(static_cast<std::size_t>(::fcntl(p.write_fd(), F_GETPIPE_SZ)), s->pipe_size());
  std::string const data = pattern(300000);  // more than a default pipe holds: the reader must drain
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(p.finish(), data);
}

/// The sizes F_SETPIPE_SZ was asked for; above kAllowed it fails with EPERM, as past
/// fs.pipe-max-size or a per-user limit.
std::vector<int> g_pipe_asks;
constexpr int kAllowed = 128 * 1024;
int limited_setpipe_fcntl(int fd, int cmd, int arg) {
  if (cmd == F_SETPIPE_SZ) {
    g_pipe_asks.push_back(arg);
    if (arg > kAllowed) {
      errno = EPERM;
      return -1;
    }
  }
  return sys::real().fcntl(fd, cmd, arg);
}

TEST_F(Sink, PipeSizeTooLargeGetsTheLargestAllowed) {
  sys::table().fcntl = limited_setpipe_fcntl;
  g_pipe_asks.clear();
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  {
    auto s = fizzgen::open_sink(fds[1], std::size_t{4} << 20);
    EXPECT_EQ(s->pipe_size(), static_cast<std::size_t>(kAllowed));
    EXPECT_EQ(::fcntl(fds[1], F_GETPIPE_SZ), kAllowed);
  }
  // 4 MiB first, then fs.pipe-max-size, then halving down to what is allowed.
  ASSERT_GE(g_pipe_asks.size(), 3u);
  EXPECT_EQ(g_pipe_asks.front(), 4 << 20);
  EXPECT_EQ(g_pipe_asks.back(), kAllowed);
  for (std::size_t i = 2; i < g_pipe_asks.size(); ++i) EXPECT_EQ(g_pipe_asks[i], g_pipe_asks[i - 1] / 2) << i;
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST_F(Sink, PipeSizeRefusedKeepsTheCurrentSize) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  sys::table().fcntl = eperm_setpipe_fcntl;
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  int const before = ::fcntl(fds[1], F_GETPIPE_SZ);
  {
    auto s = fizzgen::open_sink(fds[1], std::size_t{4} << 20);
    EXPECT_EQ(s->path(), "vmsplice");
    EXPECT_EQ(s->pipe_size(), static_cast<std::size_t>(before));
  }
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST_F(Sink, ClosedFdThrows) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::close(fds[0]);
  ::close(fds[1]);
  EXPECT_THROW(fizzgen::open_sink(fds[1]), std::runtime_error);
  EXPECT_THROW(fizzgen::open_sink(-1), std::runtime_error);
}

TEST_F(Sink, ReadOnlyFdThrows) {
  int const fd = ::open("/dev/null", O_RDONLY);
  ASSERT_GE(fd, 0);
  EXPECT_THROW(fizzgen::open_sink(fd), std::runtime_error);
  ::close(fd);
  // A pipe's read end: vmsplice on it would silently read into our buffers.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  EXPECT_THROW(fizzgen::open_sink(fds[0]), std::runtime_error);
  ::close(fds[0]);
  ::close(fds[1]);
  temp_file f;
  int const ro = ::open(f.path().c_str(), O_RDONLY);
  ASSERT_GE(ro, 0);
  EXPECT_THROW(fizzgen::open_sink(ro), std::runtime_error);
  ::close(ro);
}

TEST_F(Sink, NullSinkCountsNothingAndAcceptsAll) {
  auto s = fizzgen::make_null_sink();
  EXPECT_EQ(s->path(), "null");
  EXPECT_FALSE(s->shares_pages());
  EXPECT_EQ(s->pipe_size(), 0u);
  EXPECT_EQ(s->emit(bytes_of(pattern(1000))), emit_status::ok);
  EXPECT_EQ(s->emit({}), emit_status::ok);
}

// ---- write(2) error paths -----------------------------------------------------------------------

TEST_F(Sink, WriteRetriesEintr) {
  temp_file f;
  auto s = fizzgen::open_sink(f.fd());
  sys::table().write = fake_write;
  g_script.fail_first = 3;
  g_script.err = EINTR;
  std::string const data = pattern(5000);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(g_script.calls, 4);
  EXPECT_EQ(f.contents(), data);
}

TEST_F(Sink, WriteShortWritesKeepEveryByteInOrder) {
  temp_file f;
  auto s = fizzgen::open_sink(f.fd());
  sys::table().write = fake_write;
  g_script.max_chunk = 7;
  std::string const data = pattern(10001);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(g_script.calls, (10001 + 6) / 7);
  EXPECT_EQ(s->emit(bytes_of(data.substr(0, 3))), emit_status::ok);
  EXPECT_EQ(f.contents(), data + data.substr(0, 3));
}

TEST_F(Sink, WriteShortWritesMixedWithEintr) {
  temp_file f;
  auto s = fizzgen::open_sink(f.fd());
  sys::table().write = fake_write;
  g_script.max_chunk = 1000;
  g_script.alternate = true;
  g_script.err = EINTR;
  std::string const data = pattern(20000);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(f.contents(), data);
}

TEST_F(Sink, WriteEagainPollsThenRetries) {
  temp_file f;
  auto s = fizzgen::open_sink(f.fd());
  sys::table().write = fake_write;
  sys::table().poll_out = fake_poll_out;
  g_script.alternate = true;
  g_script.err = EAGAIN;
  g_script.max_chunk = 100;
  std::string const data = pattern(1000);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(g_script.polls, 10);  // one EAGAIN, hence one poll, before each of the 10 short writes
  EXPECT_EQ(f.contents(), data);
}

TEST_F(Sink, WritePollFailureFails) {
  temp_file f;
  auto s = fizzgen::open_sink(f.fd());
  sys::table().write = fake_write;
  sys::table().poll_out = failing_poll_out;
  g_script.fail_first = 1000;
  g_script.err = EAGAIN;
  EXPECT_EQ(s->emit(bytes_of(pattern(10))), emit_status::failed);
  EXPECT_EQ(g_script.polls, 1);
  EXPECT_EQ(s->failed_call(), "poll");
  EXPECT_EQ(s->error(), fizzgen::output_name(f.fd()) + ": " + std::strerror(EINVAL));
}

TEST(SinkName, ErrorsNameStandardOutputAsCoreutilsDoes) {
  EXPECT_EQ(fizzgen::output_name(1), "standard output");
  EXPECT_EQ(fizzgen::output_name(7), "fd 7");
}

TEST_F(Sink, WriteEpipeIsReaderGone) {
  temp_file f;
  auto s = fizzgen::open_sink(f.fd());
  sys::table().write = fake_write;
  g_script.fail_first = 1000;
  g_script.err = EPIPE;
  EXPECT_EQ(s->emit(bytes_of(pattern(10))), emit_status::reader_gone);
  EXPECT_EQ(g_script.calls, 1);  // no retry loop on a closed reader
  EXPECT_TRUE(s->error().empty()) << s->error();
}

TEST_F(Sink, WriteEnospcFails) {
  temp_file f;
  auto s = fizzgen::open_sink(f.fd());
  sys::table().write = fake_write;
  g_script.fail_first = 1000;
  g_script.err = ENOSPC;
  EXPECT_EQ(s->emit(bytes_of(pattern(10))), emit_status::failed);
  EXPECT_EQ(g_script.calls, 1);
  EXPECT_EQ(s->failed_call(), "write");
  EXPECT_EQ(s->error(), "fd " + std::to_string(f.fd()) + ": " + std::strerror(ENOSPC));
}

TEST_F(Sink, WriteFailsAfterPartialProgress) {
  temp_file f;
  auto s = fizzgen::open_sink(f.fd());
  sys::table().write = [](int fd, void const* buf, std::size_t len) -> ssize_t {
    if (g_script.calls++ == 0) return sys::real().write(fd, buf, len < 10 ? len : 10);
    errno = EIO;
    return -1;
  };
  EXPECT_EQ(s->emit(bytes_of(pattern(100))), emit_status::failed);
  EXPECT_EQ(s->error(), fizzgen::output_name(f.fd()) + ": " + std::strerror(EIO));
  EXPECT_EQ(f.contents(), pattern(10));
}

TEST_F(Sink, RealEpipeOnAPipeWithoutReader) {
  // Like a CLI that ignores SIGPIPE: the closed reader shows up as EPIPE.
  struct sigaction ignore {
  }, old{};
  ignore.sa_handler = SIG_IGN;
  ASSERT_EQ(::sigaction(SIGPIPE, &ignore, &old), 0);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  auto s = fizzgen::open_sink(fds[1]);
  ::close(fds[0]);
  EXPECT_EQ(s->emit(bytes_of(pattern(100))), emit_status::reader_gone);
  EXPECT_TRUE(s->error().empty()) << s->error();
  ::close(fds[1]);
  ::sigaction(SIGPIPE, &old, nullptr);
}

// ---- vmsplice(2) error paths on a real pipe -----------------------------------------------------

TEST_F(Sink, VmspliceRetriesEintr) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  drained_pipe p;
  auto s = fizzgen::open_sink(p.write_fd());
  ASSERT_EQ(s->path(), "vmsplice");
  sys::table().vmsplice = fake_vmsplice;
  g_script.fail_first = 3;
  g_script.err = EINTR;
  std::string const data = pattern(5000);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(g_script.calls, 4);
  EXPECT_EQ(p.finish(), data);
}

TEST_F(Sink, VmspliceShortCountsKeepEveryByteInOrder) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  drained_pipe p;
  auto s = fizzgen::open_sink(p.write_fd());
  ASSERT_EQ(s->path(), "vmsplice");
  sys::table().vmsplice = fake_vmsplice;
  g_script.max_chunk = 4099;  // not page aligned: later calls start mid-page
  std::string const data = pattern(200000);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(g_script.calls, static_cast<int>((200000 + 4098) / 4099));
  EXPECT_EQ(p.finish(), data);
}

TEST_F(Sink, VmspliceShortCountsMixedWithEintr) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  drained_pipe p;
  auto s = fizzgen::open_sink(p.write_fd());
  sys::table().vmsplice = fake_vmsplice;
  g_script.max_chunk = 777;
  g_script.alternate = true;
  g_script.err = EINTR;
  std::string const data = pattern(50000);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(p.finish(), data);
}

TEST_F(Sink, VmspliceEagainPollsThenRetries) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  drained_pipe p;
  auto s = fizzgen::open_sink(p.write_fd());
  sys::table().vmsplice = fake_vmsplice;
  sys::table().poll_out = fake_poll_out;
  g_script.alternate = true;
  g_script.err = EAGAIN;
  g_script.max_chunk = 1000;
  std::string const data = pattern(10000);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(g_script.polls, 10);
  EXPECT_EQ(p.finish(), data);
}

TEST_F(Sink, VmsplicePollFailureFails) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  drained_pipe p;
  auto s = fizzgen::open_sink(p.write_fd());
  sys::table().vmsplice = fake_vmsplice;
  sys::table().poll_out = failing_poll_out;
  g_script.fail_first = 1000;
  g_script.err = EAGAIN;
  EXPECT_EQ(s->emit(bytes_of(pattern(10))), emit_status::failed);
  EXPECT_EQ(s->failed_call(), "poll");
  EXPECT_EQ(s->error(), fizzgen::output_name(p.write_fd()) + ": " + std::strerror(EINVAL));
}

TEST_F(Sink, VmspliceEpipeIsReaderGone) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  drained_pipe p;
  auto s = fizzgen::open_sink(p.write_fd());
  sys::table().vmsplice = fake_vmsplice;
  g_script.fail_first = 1000;
  g_script.err = EPIPE;
  EXPECT_EQ(s->emit(bytes_of(pattern(10))), emit_status::reader_gone);
  EXPECT_EQ(g_script.calls, 1);
  EXPECT_TRUE(s->error().empty()) << s->error();
  EXPECT_EQ(p.finish(), "");
}

TEST_F(Sink, VmspliceEnospcFails) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  drained_pipe p;
  auto s = fizzgen::open_sink(p.write_fd());
  sys::table().vmsplice = fake_vmsplice;
  g_script.fail_first = 1000;
  g_script.err = ENOSPC;
  EXPECT_EQ(s->emit(bytes_of(pattern(10))), emit_status::failed);
  EXPECT_EQ(g_script.calls, 1);
  EXPECT_EQ(s->failed_call(), "vmsplice");
  EXPECT_EQ(s->error(), fizzgen::output_name(p.write_fd()) + ": " + std::strerror(ENOSPC));
}

// ---- spinning, slot accounting ------------------------------------------------------------------

unsigned g_last_flags = 0;
ssize_t flag_recording_vmsplice(int fd, iovec const* iov, unsigned long n, unsigned flags) {
  g_last_flags = flags;
  return fake_vmsplice(fd, iov, n, flags);
}

TEST_F(Sink, BlockingVmspliceByDefault) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  drained_pipe p;
  auto s = fizzgen::open_sink(p.write_fd());
  sys::table().vmsplice = flag_recording_vmsplice;
  g_last_flags = ~0u;
  std::string const data = pattern(100);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_EQ(g_last_flags & SPLICE_F_NONBLOCK, 0u);
  EXPECT_EQ(p.finish(), data);
}

TEST_F(Sink, SpinningVmspliceRetriesEagainWithoutPolling) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  drained_pipe p;
  auto s = fizzgen::open_sink(p.write_fd(), std::size_t{1} << 20, /*spin=*/true);
  ASSERT_EQ(s->path(), "vmsplice");
  sys::table().vmsplice = flag_recording_vmsplice;
  sys::table().poll_out = fake_poll_out;
  g_script.fail_first = 5;
  g_script.err = EAGAIN;
  std::string const data = pattern(10000);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_NE(g_last_flags & SPLICE_F_NONBLOCK, 0u);
  EXPECT_EQ(g_script.calls, 6);
  EXPECT_EQ(g_script.polls, 0);  // a few EAGAINs are spun through, not slept on
  EXPECT_EQ(p.finish(), data);
}

TEST_F(Sink, SpinningVmspliceSleepsWhenThePipeStaysFull) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  drained_pipe p;
  auto s = fizzgen::open_sink(p.write_fd(), std::size_t{1} << 20, /*spin=*/true);
  sys::table().vmsplice = fake_vmsplice;
  sys::table().poll_out = fake_poll_out;
  g_script.fail_first = 300000;  // longer than any bounded spin
  g_script.err = EAGAIN;
  std::string const data = pattern(100);
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  EXPECT_GT(g_script.polls, 0);
  EXPECT_EQ(p.finish(), data);
}

/// fake_vmsplice after a microsecond of busy waiting: a pipe that stays full for a known time.
ssize_t slow_fake_vmsplice(int fd, iovec const* iov, unsigned long n, unsigned flags) {
  auto const until = std::chrono::steady_clock::now() + std::chrono::microseconds(1);
  while (std::chrono::steady_clock::now() < until) {
  }
  return fake_vmsplice(fd, iov, n, flags);
}

TEST_F(Sink, SpinningVmspliceSleepsAfterABoundedTimeUnlessAskedToPollLong) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  // 300 EAGAINs of at least a microsecond each: past the bound (tens of microseconds), so the
  // writer sleeps in poll at least once; under poll_long(true) it polls through them all.
  for (bool const long_polls : {false, true}) {
    SCOPED_TRACE(long_polls ? "poll_long(true)" : "bounded");
    g_script = script{};
    drained_pipe p;
    auto s = fizzgen::open_sink(p.write_fd(), std::size_t{1} << 20, /*spin=*/true);
    s->poll_long(long_polls);
    sys::table().vmsplice = slow_fake_vmsplice;
    sys::table().poll_out = fake_poll_out;
    g_script.fail_first = 300;
    g_script.err = EAGAIN;
    std::string const data = pattern(1000);
    EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
    EXPECT_EQ(g_script.calls, 301);
    if (long_polls)
      EXPECT_EQ(g_script.polls, 0);
    else
      EXPECT_GT(g_script.polls, 0);
    EXPECT_EQ(p.finish(), data);
  }
}

/// CPU time of the calling thread.
std::chrono::nanoseconds thread_cpu_time() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return std::chrono::seconds(ts.tv_sec) + std::chrono::nanoseconds(ts.tv_nsec);
}

TEST_F(Sink, SpinningVmspliceSleepsWhileASlowReaderDrains) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  // A reader that takes 16 KiB every 2 ms: the pipe stays full for milliseconds at a time. The
  // writer polls it for a bounded time, then sleeps until there is room; polling all along, it
  // held its CPU the whole time the reader took (thread CPU time close to the wall time).
  drained_pipe p(16384, std::chrono::milliseconds(2));
  auto s = fizzgen::open_sink(p.write_fd(), 65536, /*spin=*/true);
  ASSERT_EQ(s->path(), "vmsplice");
  std::string const data = pattern(std::size_t{1} << 20);
  auto const wall0 = std::chrono::steady_clock::now();
  auto const cpu0 = thread_cpu_time();
  EXPECT_EQ(s->emit(bytes_of(data)), emit_status::ok);
  auto const cpu = thread_cpu_time() - cpu0;
  auto const wall = std::chrono::steady_clock::now() - wall0;
  EXPECT_EQ(p.finish(), data);
  EXPECT_GT(wall, std::chrono::milliseconds(50));  // the reader did hold it back: 64 reads of 2 ms, less a pipe
  EXPECT_LT(cpu * 4, wall) << "writer CPU " << cpu.count() << " ns in " << wall.count() << " ns";
}

TEST_F(Sink, SlotsCountPagesOrPartsOfPagesSpliced) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  // One pipe slot per page, or part of a page, that each vmsplice call covered.
  constexpr std::size_t kPage = 4096;
  auto* raw = static_cast<char*>(std::aligned_alloc(kPage, 8 * kPage));
  ASSERT_NE(raw, nullptr);
  std::memset(raw, 'x', 8 * kPage);
  {
    drained_pipe p;
    auto s = fizzgen::open_sink(p.write_fd());
    EXPECT_EQ(s->slots(), 0u);
    auto span_at = [&](std::size_t offset, std::size_t len) {
      return std::span<std::byte const>(reinterpret_cast<std::byte const*>(raw + offset), len);
    };
    EXPECT_EQ(s->emit(span_at(0, kPage)), emit_status::ok);  // exactly one page
    EXPECT_EQ(s->slots(), 1u);
    EXPECT_EQ(s->emit(span_at(100, 10000)), emit_status::ok);  // bytes 100..10099: pages 0, 1, 2
    EXPECT_EQ(s->slots(), 4u);
    EXPECT_EQ(s->emit(span_at(kPage - 1, 2)), emit_status::ok);  // straddles a page boundary
    EXPECT_EQ(s->slots(), 6u);
    // Short counts: each call takes its own slots, even for a page an earlier call touched.
    sys::table().vmsplice = fake_vmsplice;
    g_script.max_chunk = 4099;
    EXPECT_EQ(s->emit(span_at(100, 10000)), emit_status::ok);  // [100,4199) [4199,8298) [8298,10100)
    EXPECT_EQ(s->slots(), 6u + 2 + 2 + 1);
    EXPECT_EQ(p.finish().size(), kPage + 10000 + 2 + 10000);
  }
  std::free(raw);
}

TEST_F(Sink, CurrentPipeSizeFollowsAGrowingPipe) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_GE(::fcntl(fds[1], F_SETPIPE_SZ, 16384), 0);
  auto s = fizzgen::open_sink(fds[1], 16384);
  EXPECT_EQ(s->pipe_size(), 16384u);
  EXPECT_EQ(s->current_pipe_size(), 16384u);
  // Someone else grows the pipe: slot accounting must use the larger size (more slots to turn over).
  ASSERT_GE(::fcntl(fds[1], F_SETPIPE_SZ, 65536), 0);
  EXPECT_EQ(s->current_pipe_size(), 65536u);
  EXPECT_EQ(s->pipe_size(), 16384u);
  ::close(fds[0]);
  ::close(fds[1]);
}

// What has left the pipe for sure: the slots emitted less the pipe's capacity now, so a pipe a
// reader grew holds more of them (and the count never says a slot left that is still inside).
TEST_F(Sink, SlotsGoneAreTheSlotsEmittedLessTheCapacityNow) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS();
  constexpr std::size_t kPage = 4096;
  alignas(kPage) static std::byte const page_aligned[3 * kPage] = {};
  std::span<std::byte const> const three_pages(page_aligned);
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ASSERT_EQ(::fcntl(fds[1], F_SETPIPE_SZ, 4 * kPage), static_cast<int>(4 * kPage));
  {
    auto s = fizzgen::open_sink(fds[1], 4 * kPage);
    EXPECT_EQ(s->slots_gone(), 0u);
    ASSERT_EQ(s->emit(three_pages), emit_status::ok);
    EXPECT_EQ(s->slots_gone(), 0u);  // 3 slots, all inside
    std::vector<char> out(3 * kPage);
    ASSERT_EQ(::read(fds[0], out.data(), out.size()), static_cast<ssize_t>(out.size()));
    ASSERT_EQ(s->emit(three_pages), emit_status::ok);
    EXPECT_EQ(s->slots(), 6u);
    EXPECT_EQ(s->slots_gone(), 2u);                           // at most 4 of the 6 are inside
    ASSERT_GE(::fcntl(fds[0], F_SETPIPE_SZ, 16 * kPage), 0);  // a reader grows the pipe
    EXPECT_EQ(s->slots_gone(), 0u);
  }
  ::close(fds[0]);
  ::close(fds[1]);
}

TEST_F(Sink, GuardRestoresTheRealTable) {
  {
    table_guard inner;
    sys::table().write = fake_write;
    sys::table().vmsplice = fake_vmsplice;
    sys::table().poll_out = fake_poll_out;
  }
  EXPECT_EQ(sys::table().write, sys::real().write);
  EXPECT_EQ(sys::table().vmsplice, sys::real().vmsplice);
  EXPECT_EQ(sys::table().poll_out, sys::real().poll_out);
  EXPECT_EQ(sys::table().fcntl, sys::real().fcntl);
}

// ---- the start-up probe: does vmsplice share our pages or copy them? ----

/// A vmsplice that copies, as the series queued for Linux 7.2 makes it: write(2) the bytes.
ssize_t copying_vmsplice(int fd, iovec const* iov, unsigned long n, unsigned) {
  ssize_t total = 0;
  for (unsigned long i = 0; i < n; ++i) {
    ssize_t const w = ::write(fd, iov[i].iov_base, iov[i].iov_len);
    if (w < 0) return -1;
    total += w;
  }
  return total;
}

ssize_t failing_vmsplice(int, iovec const*, unsigned long, unsigned) {
  errno = EINVAL;
  return -1;
}

TEST(Probe, TodaysKernelSharesPages) {
  FIZZGEN_SKIP_UNLESS_VMSPLICE_SHARES();
  // The kernels this runs on (6.x) hand the pipe references to our pages, and the uncached probe
  // agrees with the cached one.
  EXPECT_EQ(fizzgen::run_vmsplice_probe(), fizzgen::vmsplice_kind::shares);
}

TEST(Probe, ACopyingVmspliceIsRecognised) {
  table_guard guard;
  sys::table().vmsplice = copying_vmsplice;
  EXPECT_EQ(fizzgen::run_vmsplice_probe(), fizzgen::vmsplice_kind::copies);
}

TEST(Probe, AFailingVmspliceIsUnusable) {
  table_guard guard;
  sys::table().vmsplice = failing_vmsplice;
  EXPECT_EQ(fizzgen::run_vmsplice_probe(), fizzgen::vmsplice_kind::broken);
}

}  // namespace
