#include "output/readers.hpp"

#include <fcntl.h>
#include <linux/kcmp.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <utility>

namespace fizzgen {

std::string_view to_string(taint t) noexcept {
  switch (t) {
    case taint::none:
      return "none";
    case taint::not_yet:
      return "not inspected yet";
    case taint::not_a_pipe:
      return "not a pipe";
    case taint::proc_unreadable:
      return "/proc unreadable";
    case taint::nested_namespace:
      return "nested pid namespace";
    case taint::no_reader:
      return "no reader found";
    case taint::forwarder:
      return "reader could forward";
    case taint::uninspectable:
      return "process not inspectable";
    case taint::readers_changed:
      return "readers changed";
    case taint::process_created:
      return "process created";
    case taint::pipe_opened:
      return "pipe opened";
    case taint::in_pipe:
      return "still in the pipe";
    case taint::count:
      break;
  }
  return "?";
}

namespace {

/// Linux's PF_KTHREAD in /proc/PID/stat's flags: a kernel thread has no descriptors of ours.
constexpr unsigned long kKernelThread = 0x00200000;
/// The inode of the initial pid namespace (PROC_PID_INIT_INO): fixed by the kernel.
constexpr ino_t kInitialPidNamespace = 0xEFFFFFFCu;

/// The target of the symlink `name` in directory dir ("pipe:[123]", "socket:[45]", "/dev/null"),
/// "" when unreadable. Short targets stay in the string's own storage: no allocation.
std::string link_target(int dir, char const* name) {
  std::array<char, 256> buf{};
  ssize_t const n = ::readlinkat(dir, name, buf.data(), buf.size());
  return n < 0 ? std::string() : std::string(buf.data(), static_cast<std::size_t>(n));
}

/// Reads the small file `path` under directory dir into buf; its length, 0 when unreadable.
std::size_t read_small(int dir, char const* path, std::array<char, 512>& buf) {
  int const f = ::openat(dir, path, O_RDONLY | O_CLOEXEC);
  if (f < 0) return 0;
  ssize_t const n = ::read(f, buf.data(), buf.size() - 1);
  ::close(f);
  std::size_t const len = n < 0 ? 0 : static_cast<std::size_t>(n);
  buf[len] = '\0';
  return len;
}

/// What /proc/PID/fdinfo/N says of a descriptor: its access mode, the mount and the inode of
/// its file.
struct fdinfo_fields {
  int mode = 0;
  long mnt_id = -1;
  ino_t ino = 0;
};
/// Reads an open fdinfo file again (each read looks the descriptor up anew); nullopt when it is
/// gone or the kernel's fdinfo lacks the mount or the inode (before Linux 5.14).
std::optional<fdinfo_fields> read_fdinfo(int info) {
  std::array<char, 512> buf{};
  ssize_t const n = ::pread(info, buf.data(), buf.size() - 1, 0);
  if (n <= 0) return std::nullopt;
  buf[static_cast<std::size_t>(n)] = '\0';
  char const* const flags = std::strstr(buf.data(), "\nflags:");
  char const* const mnt = std::strstr(buf.data(), "\nmnt_id:");
  char const* const ino = std::strstr(buf.data(), "\nino:");
  if (flags == nullptr || mnt == nullptr || ino == nullptr) return std::nullopt;
  fdinfo_fields f;
  f.mode = static_cast<int>(std::strtol(flags + 7, nullptr, 8)) & O_ACCMODE;  // octal
  f.mnt_id = std::strtol(mnt + 8, nullptr, 10);
  f.ino = static_cast<ino_t>(std::strtoull(ino + 5, nullptr, 10));
  return f;
}

/// The access mode of descriptor n of the task in dir, from fdinfo/N ("flags:\t0100000" is
/// octal); nullopt when unreadable.
std::optional<int> access_mode(int dir, int n) {
  std::array<char, 512> buf{};
  std::string const path = "fdinfo/" + std::to_string(n);
  if (read_small(dir, path.c_str(), buf) == 0) return std::nullopt;
  char const* flags = std::strstr(buf.data(), "flags:");
  if (flags == nullptr) return std::nullopt;
  return static_cast<int>(std::strtol(flags + 6, nullptr, 8)) & O_ACCMODE;
}

std::string process_name(int pid_dir) {
  std::array<char, 512> buf{};
  std::size_t const n = read_small(pid_dir, "comm", buf);
  std::string_view name(buf.data(), n);
  while (!name.empty() && name.back() == '\n') name.remove_suffix(1);
  return name.empty() ? "?" : std::string(name);
}

/// The fields of /proc/PID/stat that decide whether a process can hold descriptors of ours.
struct task_stat {
  char state = '?';
  unsigned long flags = 0;
  long threads = 1;
  double start = 0;  ///< seconds since boot
};

std::optional<task_stat> read_stat(int dir, char const* path) {
  std::array<char, 512> buf{};
  if (read_small(dir, path, buf) == 0) return std::nullopt;
  char const* p = std::strrchr(buf.data(), ')');  // the name may hold spaces and parentheses
  if (p == nullptr) return std::nullopt;
  task_stat s;
  // Fields after the name, from 3 (state): flags is 9, num_threads 20, starttime 22.
  for (int field = 3; field <= 22; ++field) {
    while (*p == ' ' || *p == ')') ++p;
    if (*p == '\0') return std::nullopt;
    if (field == 3) s.state = *p;
    if (field == 9) s.flags = std::strtoul(p, nullptr, 10);
    if (field == 20) s.threads = std::strtol(p, nullptr, 10);
    if (field == 22)
      s.start = static_cast<double>(std::strtoull(p, nullptr, 10)) / static_cast<double>(::sysconf(_SC_CLK_TCK));
    while (*p != ' ' && *p != '\0') ++p;
  }
  return s;
}

/// What one descriptor table holds: our pipe's read end? anything our pages could be put in?
struct table_view {
  bool readable = false, reads_ours = false;
  std::string forward;  ///< a pipe, socket or io_uring pages could sit in, "" if none
};

/// The descriptor numbers in an fd directory; nullopt when it cannot be read (the task exited).
std::optional<std::vector<int>> list_fds(DIR* fds) {
  std::vector<int> numbers;
  ::rewinddir(fds);
  errno = 0;
  while (dirent* e = ::readdir(fds)) {
    if (e->d_name[0] != '.') numbers.push_back(std::atoi(e->d_name));
    errno = 0;
  }
  if (errno != 0) return std::nullopt;
  return numbers;
}

/// What descriptor n (in the fd directory fd_dir) refers to, for a message: "pipe:[123]",
/// "socket:[45]", "/tmp/fifo".
std::string describe(int fd_dir, int n) {
  std::string const target = link_target(fd_dir, std::to_string(n).c_str());
  return target.empty() ? "descriptor " + std::to_string(n) : target;
}

/// A plain file: reading or writing it moves no page references, and holding a duplicate of it
/// changes nothing for its owner (a regular file, /dev/null and its kin, a terminal).
bool plain_file(struct stat const& st) {
  if (S_ISREG(st.st_mode)) return true;
  if (!S_ISCHR(st.st_mode)) return false;
  unsigned const major = ::major(st.st_rdev);
  return major == 1 || major == 4 || major == 5 || (major >= 136 && major <= 143);  // mem, tty, pts
}

/// Is descriptor n of task tid still the file we (process self) hold a duplicate of as `ours`?
bool same_file(pid_t tid, int n, pid_t self, int ours) {
  return ::syscall(SYS_kcmp, tid, self, KCMP_FILE, n, ours) == 0;
}

/// 0 when tasks a and b share one descriptor table, 1 when not, -1 when unknown (errno set).
long same_table(pid_t a, pid_t b) {
  long const r = ::syscall(SYS_kcmp, a, b, KCMP_FILES, 0, 0);
  return r < 0 ? -1 : (r == 0 ? 0 : 1);
}

void close_all(std::vector<std::pair<int, int>>& dups) {
  for (auto const& [theirs, dup] : dups) ::close(dup);
  dups.clear();
}

/// Our duplicate of their descriptor n in a list of (theirs, ours); -1 when not there.
int dup_of(std::vector<std::pair<int, int>> const& dups, int n) {
  auto const e = std::find_if(dups.begin(), dups.end(), [n](auto const& x) { return x.first == n; });
  return e == dups.end() ? -1 : e->second;
}

/// Our duplicate of descriptor n of the table (pidfd_getfd, through a pidfd opened on first use);
/// -1 when it cannot be had (no permission, an old kernel).
int duplicate(table_memory& memory, int n) {
  if (memory.pidfd == -1) {
    // A thread's own table needs a pidfd for that thread (PIDFD_THREAD, which is O_EXCL).
    memory.pidfd = static_cast<int>(::syscall(SYS_pidfd_open, memory.tid, memory.pid == memory.tid ? 0 : O_EXCL));
    if (memory.pidfd < 0) memory.pidfd = -2;  // tried: do not try again
  }
  if (memory.pidfd < 0) return -1;
  return static_cast<int>(::syscall(SYS_pidfd_getfd, memory.pidfd, n, 0));
}

/// Is descriptor n of the table the read end of a pipe that is empty now? (FIONREAD on a
/// duplicate taken for the question and closed at once: a read end held on would keep the pipe's
/// writer from ever seeing EPIPE.)
bool empty_read_end(table_memory& memory, int n) {
  int const dup = duplicate(memory, n);
  if (dup < 0) return false;
  struct stat st {};
  int available = 0;
  bool const empty = ::fstat(dup, &st) == 0 && S_ISFIFO(st.st_mode) &&
                     (::fcntl(dup, F_GETFL) & O_ACCMODE) == O_RDONLY && ::ioctl(dup, FIONREAD, &available) == 0 &&
                     available == 0;
  ::close(dup);
  return empty;
}

/// Looks at the descriptors `memory.numbers` of a table: dir is its /proc/PID[/task/TID], fd_dir
/// its fd directory. Each is stat()ed through its /proc link, so a named FIFO counts as the pipe it
/// is, except, when `quick`, the plain files we hold duplicates of: those are compared with them.
/// Any other pipe counts, either end: a read end can hold pages spliced in before its write end
/// was closed. Updates what memory knows. nullopt when one of them is gone or changed (when quick).
std::optional<table_view> inspect_fds(int dir, int fd_dir, file_id ours, table_memory& memory, bool quick) {
  table_view p;
  p.readable = true;
  std::vector<int> now_reading, plain;
  if (!quick) memory.empty_pipes.clear();
  for (int n : memory.numbers) {
    if (quick) {
      // Read ends of our pipe: fdinfo still names our pipe's inode on the same mount, not for
      // writing only. (Pipe inode numbers are not reused while the pipe lives, and ours does.)
      if (int const info = dup_of(memory.read_infos, n); info >= 0) {
        auto const end = read_fdinfo(info);
        if (!end || end->ino != ours.ino || end->mnt_id != memory.pipe_mnt_id || end->mode == O_WRONLY)
          return std::nullopt;
        p.reads_ours = true;
        now_reading.push_back(n);
        continue;
      }
      // Descriptors we hold duplicates of: still the same files? (kcmp, cheaper than a stat.)
      if (int const dup = dup_of(memory.held, n); dup >= 0) {
        if (!same_file(memory.tid, n, memory.self, dup)) return std::nullopt;
        continue;
      }
      if (std::find(memory.empty_pipes.begin(), memory.empty_pipes.end(), n) != memory.empty_pipes.end()) {
        if (!empty_read_end(memory, n)) return std::nullopt;
        continue;
      }
    }
    struct stat st {};
    if (::fstatat(fd_dir, std::to_string(n).c_str(), &st, 0) != 0) return std::nullopt;
    if (S_ISFIFO(st.st_mode) && file_id{st.st_dev, st.st_ino} == ours) {
      bool const known = std::find(memory.read_fds.begin(), memory.read_fds.end(), n) != memory.read_fds.end();
      auto const mode = known ? std::optional<int>(O_RDONLY) : access_mode(dir, n);
      if (!mode || *mode != O_WRONLY) {  // unknown counts as a reader
        p.reads_ours = true;
        now_reading.push_back(n);
      }
    } else if (S_ISSOCK(st.st_mode)) {
      if (p.forward.empty()) p.forward = describe(fd_dir, n);
    } else if (S_ISFIFO(st.st_mode)) {
      // Another pipe. Its write end could take our pages; its read end could hold pages spliced
      // in before the write end was closed, unless it is empty.
      if (p.forward.empty() && empty_read_end(memory, n)) {
        memory.empty_pipes.push_back(n);
      } else if (p.forward.empty()) {
        p.forward = describe(fd_dir, n);
      }
    } else if (plain_file(st)) {
      plain.push_back(n);
    } else if ((st.st_mode & S_IFMT) == 0 && p.forward.empty()) {
      // An anonymous inode (eventfd, epoll, io_uring...): an io_uring can splice through files
      // registered with it, which no longer show among the descriptors.
      if (std::string const what = describe(fd_dir, n); what.find("io_uring") != std::string::npos) p.forward = what;
    }
  }
  if (!quick && memory.watched) {
    // Keep fdinfo of each read end open, for the quick looks; only where it names the inode.
    close_all(memory.read_infos);
    for (int n : now_reading) {
      std::string const path = "fdinfo/" + std::to_string(n);
      int const info = ::openat(dir, path.c_str(), O_RDONLY | O_CLOEXEC);
      if (info < 0) continue;
      auto const end = read_fdinfo(info);
      if (end && end->ino == ours.ino && end->mode != O_WRONLY &&
          (memory.read_infos.empty() || end->mnt_id == memory.pipe_mnt_id)) {
        memory.pipe_mnt_id = end->mnt_id;
        memory.read_infos.emplace_back(n, info);
      } else {
        ::close(info);
      }
    }
  }
  memory.read_fds = std::move(now_reading);
  if (!quick && memory.watched) {  // hold its plain files, to compare them next time
    close_all(memory.held);
    for (int n : plain) {
      if (memory.held.size() == 16) break;  // enough for any consumer worth watching this closely
      if (int const dup = duplicate(memory, n); dup >= 0) memory.held.emplace_back(n, dup);
    }
  }
  return p;
}

/// Looks at every descriptor of a table, and remembers what it saw in `memory`. When the table
/// holds as many as at the last look (the kernel reports the count as the size of the fd
/// directory) and every one of them is still open (and, for the plain files we hold, still the
/// same file), they are the same descriptors, and the directory need not be read again.
table_view inspect_table(int dir, DIR* fds, file_id ours, table_memory& memory) {
  int const fd_dir = ::dirfd(fds);
  struct stat st {};
  if (!memory.numbers.empty() && ::fstat(fd_dir, &st) == 0 && st.st_size == static_cast<off_t>(memory.numbers.size()))
    if (auto p = inspect_fds(dir, fd_dir, ours, memory, true)) return *p;
  for (int attempt = 0; attempt < 2; ++attempt) {  // a descriptor closed meanwhile: once more
    auto listed = list_fds(fds);
    if (!listed) break;
    memory.numbers = std::move(*listed);
    if (auto p = inspect_fds(dir, fd_dir, ours, memory, false)) return *p;
  }
  memory.numbers.clear();
  return {};  // unreadable
}

/// The fd directory of the directory `dir` (/proc/PID or /proc/PID/task/TID); nullptr when it
/// cannot be opened.
DIR* open_fds(int dir) {
  int const fd_dir = ::openat(dir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* const fds = fd_dir < 0 ? nullptr : ::fdopendir(fd_dir);
  if (fds == nullptr && fd_dir >= 0) ::close(fd_dir);
  return fds;
}

/// A directory (/proc/PID or /proc/PID/task/TID) and its fd directory, opened relative to
/// `parent`; both closed by the caller.
bool open_table(int parent, char const* name, int& dir, DIR*& fds) {
  dir = ::openat(parent, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return false;
  fds = open_fds(dir);
  if (fds != nullptr) return true;
  ::close(dir);
  dir = -1;
  return false;
}

/// The threads of process pid (in /proc/PID/task) other than the main one; nullopt if unreadable.
std::optional<std::vector<pid_t>> other_threads(int pid_dir, pid_t pid) {
  int const task = ::openat(pid_dir, "task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  DIR* d = task < 0 ? nullptr : ::fdopendir(task);
  if (d == nullptr) {
    if (task >= 0) ::close(task);
    return std::nullopt;
  }
  std::vector<pid_t> tids;
  while (dirent* e = ::readdir(d)) {
    pid_t const tid = static_cast<pid_t>(std::atol(e->d_name));
    if (tid > 0 && tid != pid) tids.push_back(tid);
  }
  ::closedir(d);
  return tids;
}

/// The threads of pid whose descriptor table is not the main thread's (or cannot be told), and
/// those that share it.
struct thread_tables {
  std::vector<pid_t> own, shared;
};
std::optional<thread_tables> split_threads(int pid_dir, pid_t pid) {
  auto tids = other_threads(pid_dir, pid);
  if (!tids) return std::nullopt;
  thread_tables t;
  for (pid_t tid : *tids) (same_table(pid, tid) == 0 ? t.shared : t.own).push_back(tid);
  return t;
}

/// Looks at every descriptor table of a process: the main thread's, and each thread's own.
/// readable is false when one of them could not be read.
table_view inspect_process(int pid_dir, DIR* fds, pid_t pid, long threads, file_id ours) {
  table_memory memory;
  memory.pid = memory.tid = pid;
  table_view all = inspect_table(pid_dir, fds, ours, memory);
  release(memory);
  if (!all.readable || threads <= 1) return all;
  auto const split = split_threads(pid_dir, pid);
  if (!split) return {};
  for (pid_t tid : split->own) {
    std::string const name = "task/" + std::to_string(tid);
    int dir = -1;
    DIR* tfds = nullptr;
    if (!open_table(pid_dir, name.c_str(), dir, tfds)) {
      if (::faccessat(pid_dir, name.c_str(), F_OK, 0) != 0) continue;  // the thread is gone
      return {};
    }
    table_memory m;
    m.pid = pid;
    m.tid = tid;
    table_view const v = inspect_table(dir, tfds, ours, m);
    release(m);
    ::closedir(tfds);
    ::close(dir);
    if (!v.readable) return {};
    all.reads_ours = all.reads_ours || v.reads_ours;
    if (all.forward.empty() && !v.forward.empty()) all.forward = v.forward + " (in thread " + std::to_string(tid) + ")";
  }
  return all;
}

/// Seconds on the clock `id`.
double clock_seconds(clockid_t id) {
  timespec ts{};
  ::clock_gettime(id, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

/// Collects a verdict: the first reason to distrust wins.
struct verdict_builder {
  reader_verdict v;
  std::string names;
  void distrust(taint t, std::string why) {
    if (v.reason != taint::none) return;
    v.reason = t;
    v.why = std::move(why);
  }
  void add_reader(pid_t pid, std::string const& name, table_view const& p) {
    v.readers.push_back(pid);
    std::string const who = name + " (" + std::to_string(pid) + ")";
    if (!p.forward.empty())
      distrust(taint::forwarder, "reader " + who + " holds " + p.forward + " and could forward pages");
    names += (names.empty() ? "" : ", ") + who;
  }
  /// describe: say who the safe readers are (a re-check that finds them safe only confirms the
  /// scan, and skips the strings).
  reader_verdict conclude(bool describe = true) {
    if (v.reason == taint::none && v.readers.empty()) distrust(taint::no_reader, "no reader of the pipe found");
    if (v.reason == taint::none) {
      v.safe = true;
      if (describe) v.why = "readers " + names + " hold no other pipe, socket or io_uring";
    }
    return std::move(v);
  }
};

}  // namespace

void release(table_memory& memory) {
  close_all(memory.held);
  close_all(memory.read_infos);
  if (memory.pidfd >= 0) ::close(memory.pidfd);
  memory.pidfd = -1;
}

pipe_facts pipe_facts_of(int fd) {
  pipe_facts f;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return f;
  f.id = file_id{st.st_dev, st.st_ino};
  auto const same = [](timespec a, timespec b) { return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec; };
  if (same(st.st_atim, st.st_mtim) && same(st.st_mtim, st.st_ctim)) {
    double const created = static_cast<double>(st.st_ctim.tv_sec) + static_cast<double>(st.st_ctim.tv_nsec) * 1e-9;
    f.birth = created - (clock_seconds(CLOCK_REALTIME) - clock_seconds(CLOCK_BOOTTIME));
  }
  struct stat ns {};
  f.initial_namespace = ::stat("/proc/self/ns/pid", &ns) == 0 && ns.st_ino == kInitialPidNamespace;
  return f;
}

reader_verdict inspect_pipe_readers(pipe_facts const& facts, std::string const& proc_root,
                                    std::stop_token const& stop) {
  verdict_builder b;
  if (!facts.id) {
    b.distrust(taint::not_a_pipe, "output is not a pipe");
    return b.conclude();
  }
  if (!facts.initial_namespace)
    b.distrust(taint::nested_namespace,
               "fizzgen runs in a nested pid namespace: processes outside it could hold the pipe unseen");
  DIR* proc = ::opendir(proc_root.c_str());
  if (proc == nullptr) {
    b.distrust(taint::proc_unreadable, "cannot read " + proc_root);
    return b.conclude();
  }
  pid_t const self = ::getpid();
  // Start times (clock ticks) are coarse and the two clocks are read apart: a margin of 50 ms.
  double const inherited_after = facts.birth ? *facts.birth - 0.05 : -1.0;
  while (dirent* e = ::readdir(proc)) {
    if (stop.stop_requested()) {  // the run is over: its end waits for nothing more
      b.distrust(taint::not_yet, "the inspection was stopped");
      break;
    }
    char* end = nullptr;
    long const pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    int const pid_dir = ::openat(::dirfd(proc), e->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (pid_dir < 0) continue;  // gone
    // A kernel thread holds no descriptors: its flags spare the rest of the look (59 of the 67
    // processes here are kernel threads; a scan took 0.88x the time).
    auto const s = read_stat(pid_dir, "stat");
    if (s && (s->flags & kKernelThread) != 0) {
      ::close(pid_dir);
      continue;
    }
    // A process we may not inspect (another user's, or one that is not dumpable) counts when it
    // may hold the pipe: it is not a zombie or a kernel thread, and it started after the pipe.
    auto const may_hold = [&](int dir) {
      auto const now = read_stat(dir, "stat");
      if (!now) return ::faccessat(dir, "stat", F_OK, 0) == 0;  // unreadable but there
      return now->state != 'Z' && (now->flags & kKernelThread) == 0 && now->start >= inherited_after;
    };
    DIR* const fds = open_fds(pid_dir);
    if (fds == nullptr) {
      if (may_hold(pid_dir))
        b.distrust(taint::uninspectable, "cannot inspect " + process_name(pid_dir) + " (" + std::string(e->d_name) +
                                             "), started after the pipe was created");
      ::close(pid_dir);
      continue;
    }
    table_view p = inspect_process(pid_dir, fds, static_cast<pid_t>(pid), s ? s->threads : 2, *facts.id);
    // A thread exiting or a process in exec is unreadable for a moment: a second look, for a
    // process that may hold the pipe only. One that cannot and is unreadable for good (here pid
    // 1, with a descriptor even root may not stat) cost every scan the 2 ms pause: 3.5 ms a scan
    // before, 1.2 ms after.
    if (!p.readable && may_hold(pid_dir)) {
      ::usleep(2000);
      p = inspect_process(pid_dir, fds, static_cast<pid_t>(pid), 2, *facts.id);
      if (!p.readable && may_hold(pid_dir))
        b.distrust(taint::uninspectable, "cannot read every descriptor table of " + process_name(pid_dir) + " (" +
                                             std::string(e->d_name) + "), started after the pipe was created");
    }
    if (p.readable && p.reads_ours) b.add_reader(static_cast<pid_t>(pid), process_name(pid_dir), p);
    ::closedir(fds);
    ::close(pid_dir);
  }
  ::closedir(proc);
  return b.conclude();
}

namespace {

/// The newest pid in the text of /proc/loadavg ("0.48 0.69 1.34 1/312 2509": the fifth field).
long parse_loadavg(std::array<char, 512> const& buf, std::size_t n) {
  char const* p = buf.data();
  for (int field = 0; field < 4 && p != nullptr; ++field) p = std::strchr(p + 1, ' ');
  if (n == 0 || p == nullptr) return -1;
  return std::strtol(p + 1, nullptr, 10);
}

}  // namespace

long newest_pid(std::string const& proc_root) {
  std::array<char, 512> buf{};
  std::size_t const n = read_small(AT_FDCWD, (proc_root + "/loadavg").c_str(), buf);
  return parse_loadavg(buf, n);
}

pid_clock::pid_clock(std::string const& proc_root) {
  fd_ = ::open((proc_root + "/sys/kernel/ns_last_pid").c_str(), O_RDONLY | O_CLOEXEC);
  last_pid_ = fd_ >= 0;
  if (fd_ < 0) fd_ = ::open((proc_root + "/loadavg").c_str(), O_RDONLY | O_CLOEXEC);
}

pid_clock::~pid_clock() {
  if (fd_ >= 0) ::close(fd_);
}

long pid_clock::newest() const {
  std::array<char, 512> buf{};
  ssize_t const n = fd_ < 0 ? -1 : ::pread(fd_, buf.data(), buf.size() - 1, 0);
  if (n <= 0) return -1;
  buf[static_cast<std::size_t>(n)] = '\0';
  if (last_pid_) {
    char* end = nullptr;
    long const pid = std::strtol(buf.data(), &end, 10);
    return end == buf.data() ? -1 : pid;
  }
  return parse_loadavg(buf, static_cast<std::size_t>(n));
}

bool created_harmless(long from, long to, std::string const& proc_root) {
  if (from < 0 || to < from || to - from > 32) return false;
  for (long id = from + 1; id <= to; ++id) {
    std::string const name = std::to_string(id);
    if (::access(("/proc/self/task/" + name).c_str(), F_OK) == 0) continue;  // one of our threads
    // A kernel thread holds nothing of ours; /proc/ID/stat answers for any thread id.
    auto const s = read_stat(AT_FDCWD, (proc_root + "/" + name + "/stat").c_str());
    if (!s || (s->flags & kKernelThread) == 0) return false;
  }
  return true;
}

open_counter::open_counter(int fd) {
  inotify_ = ::inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
  if (inotify_ < 0) return;
  std::string const path = "/proc/self/fd/" + std::to_string(fd);
  if (::inotify_add_watch(inotify_, path.c_str(), IN_OPEN) < 0) {
    ::close(inotify_);
    inotify_ = -1;
  }
}

open_counter::~open_counter() {
  if (inotify_ >= 0) ::close(inotify_);
}

std::optional<std::uint64_t> open_counter::opens() {
  if (inotify_ < 0) return std::nullopt;
  alignas(inotify_event) std::array<char, 4096> buf{};
  for (;;) {
    ssize_t const n = ::read(inotify_, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;  // EAGAIN: nothing more
    for (ssize_t at = 0; at < n;) {
      inotify_event ev{};
      std::memcpy(&ev, buf.data() + at, sizeof ev);
      if ((ev.mask & (IN_OPEN | IN_Q_OVERFLOW)) != 0) ++opens_;
      at += static_cast<ssize_t>(sizeof ev + ev.len);
    }
  }
  return opens_;
}

reader_watch::reader_watch(int fd, std::vector<pid_t> const& readers, std::string const& proc_root) {
  struct stat st {};
  bool const is_pipe = ::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
  ours_ = file_id{st.st_dev, st.st_ino};
  int const proc = ::open(proc_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  complete_ = proc >= 0 && is_pipe;
  readers_ = readers.size();
  for (pid_t pid : readers) {
    if (!complete_) break;
    watched w;
    w.pid = pid;
    w.memory.pid = w.memory.tid = pid;
    w.memory.watched = true;
    if (!open_table(proc, std::to_string(pid).c_str(), w.dir, w.fds)) {
      complete_ = false;
      break;
    }
    auto const split = split_threads(w.dir, pid);
    if (!split) complete_ = false;
    int const pid_dir = w.dir;
    watched_.push_back(std::move(w));
    if (!split) break;
    for (pid_t tid : split->shared) shared_.emplace_back(pid, tid);
    for (pid_t tid : split->own) {
      watched t;
      t.pid = pid;
      t.memory.pid = pid;
      t.memory.tid = tid;
      t.memory.watched = true;
      if (!open_table(pid_dir, ("task/" + std::to_string(tid)).c_str(), t.dir, t.fds)) {
        complete_ = false;
        break;
      }
      watched_.push_back(std::move(t));
    }
  }
  if (proc >= 0) ::close(proc);
}

reader_watch::~reader_watch() {
  for (watched& w : watched_) {
    ::closedir(w.fds);
    ::close(w.dir);
    release(w.memory);
  }
}

reader_verdict reader_watch::recheck() {
  verdict_builder b;
  if (!complete_) b.distrust(taint::readers_changed, "a reader could not be watched");
  // A thread that shared the main table at the scan and has one of its own now (unshare):
  // what it holds was never seen.
  for (auto const& [leader, tid] : shared_) {
    long const r = same_table(leader, tid);
    if (r == 0 || (r < 0 && errno == ESRCH)) continue;  // still shared, or gone
    b.distrust(taint::readers_changed, "thread " + std::to_string(tid) + " of reader " + std::to_string(leader) +
                                           " has a descriptor table of its own now");
  }
  std::vector<pid_t> reading;
  for (watched& w : watched_) {
    table_view const p = inspect_table(w.dir, w.fds, ours_, w.memory);
    if (!p.readable) continue;
    if (!p.forward.empty())
      b.distrust(taint::forwarder,
                 "reader " + std::to_string(w.pid) + " holds " + p.forward + " and could forward pages");
    if (p.reads_ours && std::find(reading.begin(), reading.end(), w.pid) == reading.end()) reading.push_back(w.pid);
  }
  b.v.readers = std::move(reading);
  // A reader gone or no longer reading: someone else may hold the pipe now.
  if (b.v.readers.size() != readers_) b.distrust(taint::readers_changed, "the pipe's readers changed");
  return b.conclude(false);
}

}  // namespace fizzgen
