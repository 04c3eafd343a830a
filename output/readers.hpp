#pragma once
// Who reads our pipe, and could they forward our pages? A reader that splice(2)s or tee(2)s the
// pipe into another pipe or a socket passes references to our pages downstream, so rewriting a
// buffer after it left our pipe could still change what the next program reads. A process can
// only forward into a pipe or socket it holds, so readers whose descriptors include none are safe.

#include <dirent.h>
#include <sys/types.h>

#include <string>
#include <utility>
#include <vector>

namespace fizzgen {

/// A file by identity: device and inode (a pipe's inode, for pipes).
struct file_id {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(file_id const&) const = default;
};

struct reader_verdict {
  bool safe = false;           ///< every reader found, and none can forward pages
  std::string why;             ///< one line: "readers pv (1234): no pipe or socket to forward into"
  std::vector<pid_t> readers;  ///< processes holding the read end (other than us)
};

/// Inspects /proc for the processes holding the read end of the pipe on fd. Unsure (no reader
/// found, /proc unreadable, a reader with a socket or the write end of another pipe) means not
/// safe.
reader_verdict inspect_pipe_readers(int fd, std::string const& proc_root = "/proc");

/// The newest process id handed out in our pid namespace (from /proc/loadavg): when it changes, a
/// process was created since. -1 when unreadable.
long newest_pid(std::string const& proc_root = "/proc");

/// What one look at a process remembers for the next.
struct process_memory {
  pid_t pid = 0;
  int pidfd = -1;                         ///< for duplicating its plain files (-1: not done)
  std::vector<int> numbers;               ///< every descriptor it held at the last look
  std::vector<int> read_fds;              ///< those that held our pipe for reading
  std::vector<std::pair<int, int>> held;  ///< (its descriptor, our duplicate of it) for its plain files
};

/// The readers a full inspection found, kept under watch for quick re-checks. Each one's
/// /proc/PID and /proc/PID/fd stay open. When a reader holds as many descriptors as at the last
/// look (the kernel reports the count as the size of /proc/PID/fd), only those are looked at
/// again: a plain file (regular file, /dev/null, a terminal) we hold a duplicate of (pidfd_getfd)
/// by comparing the two (kcmp, about a microsecond), any other by stat() through its /proc link.
/// About seven microseconds for pv. A re-check sees what those processes hold now, not new
/// readers: only a full inspection finds those. A reader gone, or no longer reading, is unsafe.
class reader_watch {
 public:
  /// Watches nobody: every re-check is unsafe.
  reader_watch() = default;
  reader_watch(int fd, std::vector<pid_t> const& readers, std::string const& proc_root = "/proc");
  ~reader_watch();
  reader_watch(reader_watch const&) = delete;
  reader_watch& operator=(reader_watch const&) = delete;

  /// Not thread-safe: one caller at a time.
  reader_verdict recheck();

 private:
  struct watched {
    int dir = -1;        ///< /proc/PID
    DIR* fds = nullptr;  ///< /proc/PID/fd, rewound whenever it is read again
    process_memory memory;
  };
  file_id ours_;  ///< our pipe
  std::vector<watched> watched_;
  bool complete_ = false;  ///< every reader could be opened
};

}  // namespace fizzgen
