// Who reads our pipe, and could they forward our pages (output/readers.hpp), and the reuse
// monitor's vouching on top of it (engine/reuse_monitor.hpp), against real processes: a child
// holds the read end of a pipe and, on command, acquires what a forwarding reader would hold.
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "engine/reuse_monitor.hpp"
#include "output/readers.hpp"

namespace fizzgen {
namespace {

/// What the reader child does when told (one byte each, acknowledged with SIGUSR1).
enum command : char {
  open_socket = 's',        ///< socket() at a new descriptor
  pipe_onto_1 = 'p',        ///< pipe(), its write end dup2()ed over fd 1 (/dev/null): as many descriptors as before
  socket_onto_0 = 'r',      ///< a socket dup2()ed over fd 0, our read end: gone, and a socket in its place
  other_pipe_onto_0 = 'o',  ///< another pipe's read end dup2()ed over fd 0: a pipe still, not ours
  open_fifo = 'f',          ///< the named FIFO opened for writing (it shows as a path, not as pipe:[...])
  open_read_pipe = 'q',     ///< pipe(), keeping only the read end: nothing to forward into
  park_in_pipe = 'd',       ///< pipe(), a byte written, the write end closed: a read end with pages in it
  thread_start = 'T',       ///< a second thread starts, sharing the descriptor table
  thread_unshare = 'u',     ///< that thread unshares its descriptor table, then opens a socket there
  quit = 'x',
};

/// A child process whose fd 0 is the read end of our pipe and fds 1 and 2 are /dev/null; it obeys
/// commands read from fd 3. Only async-signal-safe calls after fork().
class reader_child {
 public:
  reader_child(int read_end, std::string const& fifo) {
    int control[2];
    if (::pipe(control) != 0) std::abort();
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    ::sigprocmask(SIG_BLOCK, &usr1, nullptr);  // the acknowledgements are taken with sigtimedwait
    pid_t const parent = ::getpid();
    pid_ = ::fork();
    if (pid_ < 0) std::abort();
    if (pid_ == 0) {
      int const null = ::open("/dev/null", O_RDWR);
      ::dup2(read_end, 0);
      ::dup2(null, 1);
      ::dup2(null, 2);
      ::dup2(control[0], 3);
      for (int fd = 4; fd < 1024; ++fd) ::close(fd);
      ::kill(parent, SIGUSR1);  // set up
      char c = 0;
      while (::read(3, &c, 1) == 1) {
        int p[2];
        if (c == open_socket) {
          (void)::socket(AF_UNIX, SOCK_STREAM, 0);
        } else if (c == pipe_onto_1 && ::pipe(p) == 0) {
          ::dup2(p[1], 1);
          ::close(p[1]);
          ::close(p[0]);
        } else if (c == socket_onto_0) {
          int const s = ::socket(AF_UNIX, SOCK_STREAM, 0);
          ::dup2(s, 0);
          ::close(s);
        } else if (c == other_pipe_onto_0 && ::pipe(p) == 0) {
          ::dup2(p[0], 0);
          ::close(p[0]);
          ::close(p[1]);
        } else if (c == open_fifo) {
          (void)::open(fifo.c_str(), O_WRONLY | O_NONBLOCK);  // a reader of the FIFO is open
        } else if (c == open_read_pipe && ::pipe(p) == 0) {
          ::close(p[1]);
        } else if (c == park_in_pipe && ::pipe(p) == 0) {
          (void)!::write(p[1], "x", 1);
          ::close(p[1]);
        } else if (c == thread_start) {
          // Runs after fork() in a child of a process with no other threads (the fixture starts
          // none), so creating a thread here is safe.
          std::thread([this] {
            while (stage_ != 1) ::usleep(100);
            ::unshare(CLONE_FILES);
            (void)::socket(AF_UNIX, SOCK_STREAM, 0);
            stage_ = 2;
            ::pause();
          }).detach();
        } else if (c == thread_unshare) {
          stage_ = 1;
          while (stage_ != 2) ::usleep(100);
        } else if (c == quit) {
          ::_exit(0);
        }
        ::kill(parent, SIGUSR1);
      }
      ::_exit(0);
    }
    ::close(control[0]);
    control_ = control[1];
    if (!acknowledged()) std::abort();  // until the child has set up, it holds more than fd 0-3
  }
  ~reader_child() {
    ::close(control_);
    if (reaped_) return;
    ::kill(pid_, SIGKILL);
    ::waitpid(pid_, nullptr, 0);
  }
  reader_child(reader_child const&) = delete;
  reader_child& operator=(reader_child const&) = delete;

  pid_t pid() const { return pid_; }

  /// Sends one command and waits for it to be carried out (false after 10 s without).
  bool tell(command c) {
    if (::write(control_, &c, 1) != 1) return false;
    if (c == quit) return reaped_ = ::waitpid(pid_, nullptr, 0) == pid_;
    return acknowledged();
  }

 private:
  static bool acknowledged() {
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    timespec const limit{10, 0};
    return ::sigtimedwait(&usr1, nullptr, &limit) == SIGUSR1;
  }

  std::atomic<int> stage_{0};  ///< the child's second thread: 1 told to unshare, 2 done
  pid_t pid_ = -1;
  int control_ = -1;
  bool reaped_ = false;
};

/// Our pipe: we keep the write end (as fizzgen keeps fd 1) and hand the read end to the child.
class Readers : public ::testing::Test {
 protected:
  void SetUp() override {
    // The children acknowledge with SIGUSR1: blocked before any thread (a reuse monitor's) starts,
    // so that no thread takes it with its default action, which would end the test.
    sigset_t usr1;
    sigemptyset(&usr1);
    sigaddset(&usr1, SIGUSR1);
    ::sigprocmask(SIG_BLOCK, &usr1, nullptr);
    ASSERT_EQ(::pipe(pipe_), 0);
    // In a nested pid namespace every verdict is unsafe by design (holders outside it are
    // invisible): nothing below can be shown there.
    if (!pipe_facts_of(pipe_[1]).initial_namespace) GTEST_SKIP() << "fizzgen runs in a nested pid namespace";
    char dir[] = "/tmp/fizzgen-readers-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    dir_ = dir;
    fifo_ = dir_ + "/fifo";
    ASSERT_EQ(::mkfifo(fifo_.c_str(), 0600), 0);
    fifo_reader_ = ::open(fifo_.c_str(), O_RDONLY | O_NONBLOCK);  // lets the child open it for writing
    ASSERT_GE(fifo_reader_, 0);
  }
  void TearDown() override {
    ::close(fifo_reader_);
    ::close(pipe_[0]);
    ::close(pipe_[1]);
    ::unlink(fifo_.c_str());
    ::rmdir(dir_.c_str());
  }
  /// Starts the child, then gives up our own read end: the child is the only reader.
  reader_child& start_child() {
    child_.emplace_back(std::make_unique<reader_child>(pipe_[0], fifo_));
    return *child_.back();
  }
  int write_end() const { return pipe_[1]; }

  int pipe_[2] = {-1, -1};
  std::string dir_, fifo_;
  int fifo_reader_ = -1;
  std::vector<std::unique_ptr<reader_child>> child_;
};

/// A full scan that other tests' processes do not decide: a process of another user (the suites
/// run fizzgen as nobody) started after our pipe cannot be inspected and counts as a possible
/// holder, by design. Scans again, up to a second, while that is the only finding.
reader_verdict settled_scan(int write_end) {
  reader_verdict v = inspect_pipe_readers(write_end);
  for (int i = 0; i < 100 && v.reason == taint::uninspectable; ++i) {
    ::usleep(10'000);
    v = inspect_pipe_readers(write_end);
  }
  return v;
}

// Our own read end would make us a reader too: the inspections skip our own process, so the
// verdicts below are about the child alone.
TEST_F(Readers, APlainReaderIsSafe) {
  reader_child& child = start_child();
  reader_verdict const v = settled_scan(write_end());
  EXPECT_TRUE(v.safe) << v.why;
  ASSERT_EQ(v.readers.size(), 1u);
  EXPECT_EQ(v.readers[0], child.pid());
  reader_watch watch(write_end(), v.readers);
  for (int i = 0; i < 100; ++i) ASSERT_TRUE(watch.recheck().safe) << "re-check " << i;
}

TEST_F(Readers, NoOtherReaderIsUnsafe) {
  reader_verdict const v = inspect_pipe_readers(write_end());
  EXPECT_FALSE(v.safe);
  EXPECT_TRUE(v.readers.empty());
  EXPECT_EQ(v.why, "no reader of the pipe found");
  reader_watch watch(write_end(), v.readers);
  EXPECT_FALSE(watch.recheck().safe);
}

// A scan stopped (the run is over) ends at once, and finds nothing safe, whoever reads.
TEST_F(Readers, AStoppedScanEndsUnsafe) {
  start_child();
  ASSERT_TRUE(settled_scan(write_end()).safe);
  std::stop_source stop;
  stop.request_stop();
  reader_verdict const v = inspect_pipe_readers(pipe_facts_of(write_end()), "/proc", stop.get_token());
  EXPECT_FALSE(v.safe);
  EXPECT_EQ(v.reason, taint::not_yet);
  EXPECT_TRUE(v.readers.empty());
}

TEST_F(Readers, NotAPipeIsUnsafe) {
  int const null = ::open("/dev/null", O_WRONLY);
  reader_verdict const v = inspect_pipe_readers(null);
  ::close(null);
  EXPECT_FALSE(v.safe);
  EXPECT_EQ(v.why, "output is not a pipe");
}

/// Each change a reader could make to start forwarding, seen by a full inspection and by a
/// re-check of a watch set up before the change (the quick path: it had looked before).
void expect_caught(reader_child& child, int write_end, command c, std::string const& what) {
  reader_verdict const before = settled_scan(write_end);
  ASSERT_TRUE(before.safe) << before.why;
  reader_watch watch(write_end, before.readers);
  ASSERT_TRUE(watch.recheck().safe);
  ASSERT_TRUE(watch.recheck().safe);
  ASSERT_TRUE(child.tell(c)) << what;
  reader_verdict const after = watch.recheck();
  EXPECT_FALSE(after.safe) << what << ": " << after.why;
  EXPECT_FALSE(inspect_pipe_readers(write_end).safe) << what;
}

TEST_F(Readers, ASocketOpenedLaterIsCaught) { expect_caught(start_child(), write_end(), open_socket, "socket()"); }

TEST_F(Readers, APipeDupedOverAPlainFileIsCaught) {
  expect_caught(start_child(), write_end(), pipe_onto_1, "pipe write end over /dev/null, same count");
}

TEST_F(Readers, ASocketInPlaceOfTheReadEndIsCaught) {
  expect_caught(start_child(), write_end(), socket_onto_0, "socket over our read end, same count");
}

// The quick look at a read end asks fdinfo for the inode: another pipe in its place differs.
TEST_F(Readers, AnotherPipeInPlaceOfTheReadEndIsCaught) {
  expect_caught(start_child(), write_end(), other_pipe_onto_0, "another pipe's read end over ours, same count");
}

TEST_F(Readers, ANamedFifoOpenedForWritingIsCaught) {
  expect_caught(start_child(), write_end(), open_fifo, "named FIFO for writing");
}

TEST_F(Readers, AReaderThatLeavesIsCaught) { expect_caught(start_child(), write_end(), quit, "reader exited"); }

TEST_F(Readers, TheReadEndOfAnotherPipeIsHarmless) {
  reader_child& child = start_child();
  reader_verdict const before = settled_scan(write_end());
  ASSERT_TRUE(before.safe) << before.why;
  reader_watch watch(write_end(), before.readers);
  ASSERT_TRUE(watch.recheck().safe);
  ASSERT_TRUE(child.tell(open_read_pipe));
  reader_verdict const after = watch.recheck();
  EXPECT_TRUE(after.safe) << after.why;
  reader_verdict const scanned = settled_scan(write_end());
  EXPECT_TRUE(scanned.safe) << scanned.why;
}

// A read end is harmless only while its pipe is empty: pages spliced in before the write end was
// closed sit there until read.
TEST_F(Readers, AReadEndWithPagesInItIsCaught) {
  expect_caught(start_child(), write_end(), park_in_pipe, "a read end of a pipe holding a byte");
}

// /proc/PID/fd shows the main thread's table only: a thread's own table is read too, and a
// thread that stops sharing the main table ends what a watch can vouch for.
TEST_F(Readers, AThreadWithItsOwnTableIsCaught) {
  reader_child& child = start_child();
  ASSERT_TRUE(child.tell(thread_start));
  expect_caught(child, write_end(), thread_unshare, "a thread's own table with a socket");
  reader_verdict const v = inspect_pipe_readers(write_end());
  EXPECT_EQ(v.reason, taint::forwarder) << v.why;
  EXPECT_NE(v.why.find("in thread"), std::string::npos) << v.why;
}

// fizzgen must hold no duplicate of a pipe's read end (ours, or a reader's other pipes): it would
// keep the pipe open for reading after the reader exits, and the writer would never see EPIPE.
TEST_F(Readers, WatchingHoldsNoReadEndThatWouldHideEpipe) {
  reader_child& child = start_child();
  ASSERT_TRUE(child.tell(open_read_pipe));
  reader_verdict const v = settled_scan(write_end());
  ASSERT_TRUE(v.safe) << v.why;
  reader_watch watch(write_end(), v.readers);
  ASSERT_TRUE(watch.recheck().safe);
  ASSERT_TRUE(watch.recheck().safe);  // the quick path, after a full look
  ASSERT_TRUE(child.tell(quit));
  ::close(pipe_[0]);  // our own read end: now nobody should be reading
  pipe_[0] = -1;
  struct sigaction ignore {};
  struct sigaction old {};
  ignore.sa_handler = SIG_IGN;
  ::sigaction(SIGPIPE, &ignore, &old);
  ssize_t const n = ::write(write_end(), "x", 1);
  int const error = errno;
  ::sigaction(SIGPIPE, &old, nullptr);
  EXPECT_EQ(n, -1);
  EXPECT_EQ(error, EPIPE);
}

TEST_F(Readers, TheUnsafeReasonNamesWhatTheReaderHolds) {
  reader_child& child = start_child();
  ASSERT_TRUE(child.tell(open_socket));
  reader_verdict const v = inspect_pipe_readers(write_end());
  EXPECT_FALSE(v.safe);
  EXPECT_NE(v.why.find("socket:["), std::string::npos) << v.why;
  EXPECT_NE(v.why.find(std::to_string(child.pid())), std::string::npos) << v.why;
}

TEST_F(Readers, TwoReadersAreBothWatched) {
  reader_child& one = start_child();
  reader_child& two = start_child();
  reader_verdict const v = settled_scan(write_end());
  EXPECT_TRUE(v.safe) << v.why;
  EXPECT_EQ(v.readers.size(), 2u);
  reader_watch watch(write_end(), v.readers);
  ASSERT_TRUE(watch.recheck().safe);
  ASSERT_TRUE(two.tell(open_socket));
  EXPECT_FALSE(watch.recheck().safe);
  (void)one;
}

TEST(NewestPid, GrowsWhenAProcessIsCreated) {
  long const before = newest_pid();
  ASSERT_GT(before, 0);
  pid_t const child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  EXPECT_NE(newest_pid(), before);
}

// The clock a re-check reads (ns_last_pid where readable, else loadavg) is the counter
// newest_pid() reads from loadavg.
TEST(PidClock, ReadsTheCounterNewestPidReadsAndGrows) {
  pid_clock const clock;
  long const before = clock.newest();
  ASSERT_GT(before, 0);
  EXPECT_EQ(before, newest_pid());
  pid_t const child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  long const after = clock.newest();
  EXPECT_NE(after, before);
  EXPECT_EQ(after, newest_pid());
}

TEST(CreatedHarmless, OurOwnThreadsAreHarmlessAProcessGoneIsNot) {
  std::atomic<bool> go{false};
  std::vector<std::thread> threads;
  long with_thread = 0;
  bool harmless = false;
  // Our thread shares our table. Another process created meanwhile (another test running beside
  // this one) is not harmless, and rightly: then again, with a new thread.
  for (int attempt = 0; attempt < 50 && !harmless; ++attempt) {
    long const before = newest_pid();
    threads.emplace_back([&go] {
      while (!go) ::usleep(100);
    });
    with_thread = newest_pid();
    harmless = created_harmless(before, with_thread);
  }
  EXPECT_TRUE(harmless);
  pid_t const child = ::fork();
  if (child == 0) ::_exit(0);
  ::waitpid(child, nullptr, 0);
  long const after = newest_pid();
  EXPECT_FALSE(created_harmless(with_thread, after));  // created and gone: nobody can say what it held
  EXPECT_FALSE(created_harmless(after, after - 1));    // the counter went backwards: wrapped
  go = true;
  for (std::thread& t : threads) t.join();
}

TEST(OpenCounter, CountsOpensThroughProc) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  open_counter opens(p[1]);
  ASSERT_TRUE(opens.opens().has_value());
  EXPECT_EQ(*opens.opens(), 0u);
  int const again = ::open(("/proc/self/fd/" + std::to_string(p[0])).c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(again, 0);
  EXPECT_EQ(*opens.opens(), 1u);
  ASSERT_EQ(::write(p[1], "x", 1), 1);  // writes and reads are not opens
  char c = 0;
  ASSERT_EQ(::read(again, &c, 1), 1);
  EXPECT_EQ(*opens.opens(), 1u);
  ::close(again);
  ::close(p[0]);
  ::close(p[1]);
}

TEST(PipeFacts, AnUntouchedPipeHasABirthATouchedOneHasNone) {
  int p[2];
  ASSERT_EQ(::pipe(p), 0);
  pipe_facts const fresh = pipe_facts_of(p[1]);
  ASSERT_TRUE(fresh.id.has_value());
  ASSERT_TRUE(fresh.birth.has_value());
  timespec up{};
  ::clock_gettime(CLOCK_BOOTTIME, &up);
  EXPECT_NEAR(*fresh.birth, static_cast<double>(up.tv_sec) + static_cast<double>(up.tv_nsec) * 1e-9, 1.0);
  ::usleep(20'000);  // past the coarse clock's tick, so the write's time differs
  ASSERT_EQ(::write(p[1], "x", 1), 1);
  // Written before we looked: the birth is unknown, unless the kernel leaves an anonymous pipe's
  // times alone (6.x does), and then it is still the same.
  pipe_facts const written = pipe_facts_of(p[1]);
  if (written.birth) {
    EXPECT_NEAR(*written.birth, *fresh.birth, 0.01);
  }
  ::close(p[0]);
  ::close(p[1]);
}

/// A sink that only reports a slot count the test sets.
class slot_sink final : public sink {
 public:
  emit_status emit(std::span<std::byte const>) noexcept override { return emit_status::ok; }
  bool shares_pages() const noexcept override { return true; }
  std::string_view path() const noexcept override { return "test"; }
  std::uint64_t slots() const noexcept override { return slots_.load(); }
  /// A pipe that keeps nothing: every slot emitted is out at once.
  std::uint64_t slots_gone() const noexcept override { return slots_.load(); }
  std::atomic<std::uint64_t> slots_{2};  ///< past the two pipes' worth the monitor waits for
};

/// Runs `steps` (which return true when all their expectations held) until one run saw no process
/// created elsewhere on the machine meanwhile: that ends epochs by design
/// (docs/reuse-soundness.md), and a test cannot stop other tests or the system from doing it.
template <class Steps>
void undisturbed(Steps steps) {
  for (int attempt = 0; attempt < 50; ++attempt) {
    long const before = newest_pid();
    // The monitor looks at the newest pid every 20 ms: by now it has acted on any process created
    // before `before`, and steps() waits for the epoch it then opens.
    ::usleep(50'000);
    bool const held = steps();
    if (newest_pid() == before) {
      EXPECT_TRUE(held);
      return;
    }
    ::usleep(20'000);
  }
  GTEST_SKIP() << "processes were created during each of 50 attempts";
}

TEST_F(Readers, TheMonitorVouchesOnlyForWhatLeftBeforeItLooked) {
  reader_child& child = start_child();
  slot_sink out;
  reuse_monitor monitor(write_end(), out);
  for (int i = 0; i < 500 && !reuse_monitor::safe(monitor.state()); ++i) ::usleep(10'000);
  ASSERT_TRUE(reuse_monitor::safe(monitor.state())) << monitor.why();
  std::uint64_t slots = 0;
  undisturbed([&] {
    for (int i = 0; i < 500 && !reuse_monitor::safe(monitor.state()); ++i) ::usleep(10'000);
    slots += 1000;
    out.slots_ = slots;
    bool const now = monitor.vouch(slots);  // a re-check begun at `slots` slots
    std::uint64_t const rechecks = monitor.rechecks();
    bool const covered = monitor.vouch(slots - 400);  // covered by that re-check: no new one
    bool const no_new = monitor.rechecks() == rechecks;
    bool const later = monitor.vouch(slots + 1);  // a re-check begun at `slots` cannot speak for more
    return now && covered && no_new && !later;
  });
  out.slots_ = slots + 1000;
  ASSERT_TRUE(child.tell(open_socket));
  EXPECT_FALSE(monitor.vouch(slots + 1000));
  EXPECT_FALSE(reuse_monitor::safe(monitor.state()));
  EXPECT_FALSE(monitor.vouch(slots + 1000));  // unsafe now: no re-check, no vouching
  // The finding names the socket, unless a process created meanwhile ended the epoch first.
  if (monitor.breaks()[static_cast<std::size_t>(taint::process_created)] == 0) {
    EXPECT_NE(monitor.why().find("socket:["), std::string::npos) << monitor.why();
  }
}

// A process created anywhere ends the epoch: it may have inherited the read end, forwarded and
// gone before any look (a forked child, pv started and finished between two scans).
TEST_F(Readers, AProcessCreatedEndsTheEpoch) {
  start_child();
  slot_sink out;
  reuse_monitor monitor(write_end(), out);
  for (int i = 0; i < 500 && !reuse_monitor::safe(monitor.state()); ++i) ::usleep(10'000);
  ASSERT_TRUE(reuse_monitor::safe(monitor.state())) << monitor.why();
  out.slots_ = 1000;
  pid_t const other = ::fork();
  if (other == 0) ::_exit(0);
  ::waitpid(other, nullptr, 0);
  EXPECT_FALSE(monitor.vouch(1000));
  EXPECT_FALSE(reuse_monitor::safe(monitor.state()) && monitor.vouch(1000));
  EXPECT_GE(monitor.breaks()[static_cast<std::size_t>(taint::process_created)], 1u);
  // The next scan opens a new epoch (the child is gone, the reader unchanged).
  for (int i = 0; i < 500 && !reuse_monitor::safe(monitor.state()); ++i) ::usleep(10'000);
  EXPECT_TRUE(reuse_monitor::safe(monitor.state())) << monitor.why();
  EXPECT_GE(monitor.epochs(), 2u);
}

// An open of the pipe through /proc (a process that does not descend from a reader taking the
// pipe) ends the epoch.
TEST_F(Readers, AnOpenThroughProcEndsTheEpoch) {
  start_child();
  slot_sink out;
  reuse_monitor monitor(write_end(), out);
  std::uint64_t slots = 0;
  undisturbed([&] {
    for (int i = 0; i < 500 && !reuse_monitor::safe(monitor.state()); ++i) ::usleep(10'000);
    slots += 1000;
    out.slots_ = slots;
    int const again = ::open(("/proc/self/fd/" + std::to_string(write_end())).c_str(), O_WRONLY);
    bool const vouched = monitor.vouch(slots);
    ::close(again);
    return again >= 0 && !vouched && monitor.breaks()[static_cast<std::size_t>(taint::pipe_opened)] >= 1;
  });
}

// Nothing can be rewritten before two pipes' worth was emitted: a short run never scans (nor pays
// for the inotify descriptor's close).
TEST_F(Readers, TheMonitorWaitsUntilABufferCouldBeRewritten) {
  start_child();
  slot_sink out;
  out.slots_ = 0;
  reuse_monitor monitor(write_end(), out);
  ::usleep(50'000);
  EXPECT_EQ(monitor.scans(), 0u);
  EXPECT_EQ(reuse_monitor::reason(monitor.state()), taint::not_yet);
  EXPECT_FALSE(monitor.vouch(1));
  out.slots_ = 2;
  for (int i = 0; i < 500 && monitor.scans() == 0; ++i) ::usleep(10'000);
  EXPECT_GE(monitor.scans(), 1u);
}

/// Sends descriptor fd over the unix socket `via` (SCM_RIGHTS).
bool send_fd(int via, int fd) {
  char byte = 'x';
  iovec io{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &io;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  return ::sendmsg(via, &msg, 0) == 1;
}

// A process that existed before the epoch and takes the pipe without an open, a fork or a socket
// any reader holds (here: it is handed the read end by a process fizzgen does not inspect, its
// own; pidfd_getfd would do the same): the periodic scan during an epoch finds it and ends it.
TEST_F(Readers, AnOldProcessThatTakesThePipeLaterIsFound) {
  start_child();
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  pid_t const taker = ::fork();
  ASSERT_GE(taker, 0);
  if (taker == 0) {  // holds a socket, not the pipe: harmless until it receives the read end
    ::dup2(sv[1], 3);
    for (int fd = 4; fd < 1024; ++fd) ::close(fd);
    char byte = 0;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
    iovec io{&byte, 1};
    msghdr msg{};
    msg.msg_iov = &io;
    msg.msg_iovlen = 1;
    msg.msg_control = control;
    msg.msg_controllen = sizeof control;
    (void)::recvmsg(3, &msg, 0);
    ::pause();
    ::_exit(0);
  }
  ::close(sv[1]);
  slot_sink out;
  reuse_monitor monitor(write_end(), out);
  for (int i = 0; i < 500 && !reuse_monitor::safe(monitor.state()); ++i) ::usleep(10'000);
  ASSERT_TRUE(reuse_monitor::safe(monitor.state())) << monitor.why();
  ASSERT_TRUE(send_fd(sv[0], pipe_[0]));
  for (int i = 0; i < 300 && reuse_monitor::safe(monitor.state()); ++i) ::usleep(10'000);
  EXPECT_FALSE(reuse_monitor::safe(monitor.state())) << monitor.why();
  ::kill(taker, SIGKILL);
  ::waitpid(taker, nullptr, 0);
  ::close(sv[0]);
}

TEST_F(Readers, TheMonitorFindsAReaderThatComesLater) {
  slot_sink out;
  reuse_monitor monitor(write_end(), out);
  for (int i = 0; i < 500 && monitor.scans() == 0; ++i) ::usleep(1'000);  // the first scan: nobody
  EXPECT_FALSE(reuse_monitor::safe(monitor.state()));
  start_child();  // a new process: the monitor scans again within 20 ms or so
  for (int i = 0; i < 500 && !reuse_monitor::safe(monitor.state()); ++i) ::usleep(10'000);
  EXPECT_TRUE(reuse_monitor::safe(monitor.state())) << monitor.why();
  EXPECT_GE(monitor.scans(), 2u);
}

}  // namespace
}  // namespace fizzgen
