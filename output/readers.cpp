#include "output/readers.hpp"

#include <fcntl.h>
#include <linux/kcmp.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string_view>
#include <utility>

namespace fizzgen {
namespace {

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

/// The access mode of descriptor n of the process in pid_dir, from fdinfo/N ("flags:\t0100000" is
/// octal); nullopt when unreadable.
std::optional<int> access_mode(int pid_dir, int n) {
  std::array<char, 512> buf{};
  std::string const path = "fdinfo/" + std::to_string(n);
  if (read_small(pid_dir, path.c_str(), buf) == 0) return std::nullopt;
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

/// What one process holds: our pipe's read end? a pipe write end or socket it could forward into?
struct process_view {
  bool readable = false, reads_ours = false;
  std::string forward;  ///< a pipe or socket this process could splice into, "" if none
};

/// The descriptor numbers in /proc/PID/fd; nullopt when it cannot be read (the process exited).
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

/// What descriptor n (in /proc/PID/fd, fd_dir) refers to, for a message: "pipe:[123]",
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

/// Is descriptor n of process pid still the file we hold a duplicate of as `ours`?
bool same_file(pid_t pid, int n, int ours) { return ::syscall(SYS_kcmp, pid, ::getpid(), KCMP_FILE, n, ours) == 0; }

/// Looks at the descriptors `memory.numbers` of a process: pid_dir is its /proc/PID, fd_dir its
/// /proc/PID/fd. Each is stat()ed through its /proc link, so a named FIFO counts as the pipe it is,
/// except, when `quick`, the plain files we hold duplicates of: those are compared with them.
/// Updates what memory knows of them. nullopt when one of them is gone or changed (when quick).
std::optional<process_view> inspect_fds(int pid_dir, int fd_dir, file_id ours, process_memory& memory, bool quick) {
  process_view p;
  p.readable = true;
  std::vector<int> pipes;  // other pipes and FIFOs: a write end could be spliced into
  std::vector<int> now_reading, plain;
  for (int n : memory.numbers) {
    if (quick) {
      auto const h = std::find_if(memory.held.begin(), memory.held.end(), [n](auto const& e) { return e.first == n; });
      if (h != memory.held.end()) {
        if (!same_file(memory.pid, n, h->second)) return std::nullopt;
        continue;
      }
    }
    struct stat st {};
    if (::fstatat(fd_dir, std::to_string(n).c_str(), &st, 0) != 0) return std::nullopt;
    if (S_ISFIFO(st.st_mode) && file_id{st.st_dev, st.st_ino} == ours) {
      bool const known = std::find(memory.read_fds.begin(), memory.read_fds.end(), n) != memory.read_fds.end();
      auto const mode = known ? std::optional<int>(O_RDONLY) : access_mode(pid_dir, n);
      if (!mode || *mode != O_WRONLY) {  // unknown counts as a reader
        p.reads_ours = true;
        now_reading.push_back(n);
      }
    } else if (S_ISSOCK(st.st_mode)) {
      if (p.forward.empty()) p.forward = describe(fd_dir, n);
    } else if (S_ISFIFO(st.st_mode)) {
      pipes.push_back(n);
    } else if (plain_file(st)) {
      plain.push_back(n);
    } else if ((st.st_mode & S_IFMT) == 0 && p.forward.empty()) {
      // An anonymous inode (eventfd, epoll, io_uring...): an io_uring can splice through files
      // registered with it, which no longer show among the descriptors.
      if (std::string const what = describe(fd_dir, n); what.find("io_uring") != std::string::npos) p.forward = what;
    }
  }
  memory.read_fds = std::move(now_reading);
  if (!quick && memory.pidfd >= 0) {  // hold its plain files, to compare them next time
    for (auto const& [theirs, dup] : memory.held) ::close(dup);
    memory.held.clear();
    for (int n : plain) {
      if (memory.held.size() == 16) break;  // enough for any consumer worth watching this closely
      int const dup = static_cast<int>(::syscall(SYS_pidfd_getfd, memory.pidfd, n, 0));
      if (dup >= 0) memory.held.emplace_back(n, dup);
    }
  }
  // Access modes of other pipes matter only for readers (fdinfo reads are the costly part).
  if (p.reads_ours && p.forward.empty()) {
    for (int n : pipes) {
      auto const mode = access_mode(pid_dir, n);
      if (!mode || *mode != O_RDONLY) {  // only a write end can be spliced into
        p.forward = describe(fd_dir, n);
        break;
      }
    }
  }
  return p;
}

/// Looks at every descriptor of a process, and remembers what it saw in `memory`. When the process
/// holds as many as at the last look (the kernel reports the count as the size of /proc/PID/fd)
/// and every one of them is still open (and, for the plain files we hold, still the same file),
/// they are the same descriptors, and the directory need not be read again.
process_view inspect_process(int pid_dir, DIR* fds, file_id ours, process_memory& memory) {
  int const fd_dir = ::dirfd(fds);
  struct stat st {};
  if (!memory.numbers.empty() && ::fstat(fd_dir, &st) == 0 && st.st_size == static_cast<off_t>(memory.numbers.size()))
    if (auto p = inspect_fds(pid_dir, fd_dir, ours, memory, true)) return *p;
  for (int attempt = 0; attempt < 2; ++attempt) {  // a descriptor closed meanwhile: once more
    auto listed = list_fds(fds);
    if (!listed) break;
    memory.numbers = std::move(*listed);
    if (auto p = inspect_fds(pid_dir, fd_dir, ours, memory, false)) return *p;
  }
  memory.numbers.clear();
  return {};  // unreadable
}

/// The identity of the pipe (or FIFO) on fd; nullopt when fd is not one.
std::optional<file_id> pipe_id(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return std::nullopt;
  return file_id{st.st_dev, st.st_ino};
}

/// /proc/PID and /proc/PID/fd, opened relative to the /proc directory; both closed by the caller.
bool open_process(int proc, char const* pid, int& pid_dir, DIR*& fds) {
  pid_dir = ::openat(proc, pid, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (pid_dir < 0) return false;
  int const fd_dir = ::openat(pid_dir, "fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  fds = fd_dir < 0 ? nullptr : ::fdopendir(fd_dir);
  if (fds != nullptr) return true;
  if (fd_dir >= 0) ::close(fd_dir);
  ::close(pid_dir);
  pid_dir = -1;
  return false;
}

/// Adds a process that reads our pipe to the verdict being built; unsafe collects the first
/// reason to distrust.
void add_reader(reader_verdict& v, std::string& unsafe, pid_t pid, std::string const& name, process_view const& p) {
  v.readers.push_back(pid);
  std::string const who = name + " (" + std::to_string(pid) + ")";
  if (!p.forward.empty() && unsafe.empty())
    unsafe = "reader " + who + " holds " + p.forward + " and could forward pages";
  v.why += (v.why.empty() ? "" : ", ") + who;
}

void conclude(reader_verdict& v, std::string const& unsafe) {
  if (v.readers.empty()) {
    v.why = "no reader of the pipe found";
  } else if (!unsafe.empty()) {
    v.why = unsafe;
  } else {
    v.safe = true;
    v.why = "readers " + v.why + " hold no pipe or socket to forward into";
  }
}

}  // namespace

reader_verdict inspect_pipe_readers(int fd, std::string const& proc_root) {
  reader_verdict v;
  std::optional<file_id> const ours = pipe_id(fd);
  if (!ours) {
    v.why = "output is not a pipe";
    return v;
  }
  DIR* proc = ::opendir(proc_root.c_str());
  if (proc == nullptr) {
    v.why = "cannot read " + proc_root;
    return v;
  }
  pid_t const self = ::getpid();
  std::string unsafe;
  while (dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    long const pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    int pid_dir = -1;
    DIR* fds = nullptr;
    // A process we may not inspect (another user's) is skipped: if it is the reader, no reader is
    // found and the verdict stays unsafe.
    if (!open_process(::dirfd(proc), e->d_name, pid_dir, fds)) continue;
    process_memory memory;
    process_view const p = inspect_process(pid_dir, fds, *ours, memory);
    if (p.readable && p.reads_ours) add_reader(v, unsafe, static_cast<pid_t>(pid), process_name(pid_dir), p);
    ::closedir(fds);
    ::close(pid_dir);
  }
  ::closedir(proc);
  conclude(v, unsafe);
  return v;
}

long newest_pid(std::string const& proc_root) {
  std::array<char, 512> buf{};
  std::size_t const n = read_small(AT_FDCWD, (proc_root + "/loadavg").c_str(), buf);
  // "0.48 0.69 1.34 1/312 2509": the fifth field.
  char const* p = buf.data();
  for (int field = 0; field < 4 && p != nullptr; ++field) p = std::strchr(p + 1, ' ');
  if (n == 0 || p == nullptr) return -1;
  return std::strtol(p + 1, nullptr, 10);
}

reader_watch::reader_watch(int fd, std::vector<pid_t> const& readers, std::string const& proc_root)
    : ours_(pipe_id(fd).value_or(file_id{})) {
  int const proc = ::open(proc_root.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  complete_ = proc >= 0 && pipe_id(fd).has_value();
  for (pid_t pid : readers) {
    watched w;
    w.memory.pid = pid;
    if (complete_ && open_process(proc, std::to_string(pid).c_str(), w.dir, w.fds)) {
      // Without a pidfd (no permission, an old kernel) every descriptor is stat()ed each time.
      w.memory.pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid, 0));
      watched_.push_back(std::move(w));
    } else {
      complete_ = false;
    }
  }
  if (proc >= 0) ::close(proc);
}

reader_watch::~reader_watch() {
  for (watched const& w : watched_) {
    ::closedir(w.fds);
    ::close(w.dir);
    for (auto const& [theirs, dup] : w.memory.held) ::close(dup);
    if (w.memory.pidfd >= 0) ::close(w.memory.pidfd);
  }
}

reader_verdict reader_watch::recheck() {
  reader_verdict v;
  std::string unsafe;
  for (watched& w : watched_) {
    process_view const p = inspect_process(w.dir, w.fds, ours_, w.memory);
    if (p.readable && p.reads_ours) add_reader(v, unsafe, w.memory.pid, "pid", p);
  }
  // A reader gone or no longer reading: someone else may hold the pipe now.
  if ((!complete_ || v.readers.size() != watched_.size()) && unsafe.empty()) unsafe = "the pipe's readers changed";
  conclude(v, unsafe);
  return v;
}

}  // namespace fizzgen
