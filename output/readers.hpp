#pragma once
// Who could hold our pipe, and could they have forwarded our pages? A process that splice(2)s or
// tee(2)s the pipe into another pipe or a socket passes references to our pages downstream, so
// rewriting a buffer after it left our pipe could still change what the next program reads. The
// argument that decides when a buffer may be rewritten in place is docs/reuse-soundness.md; this
// file gathers the facts it rests on: which processes hold the read end (every descriptor table of
// every thread), whether any of them holds anything pages could sit in (another pipe, either end; a
// socket; an io_uring), which processes could not be inspected, whether a process was created
// (the newest pid) and whether anyone opened the pipe through /proc (inotify IN_OPEN).

#include <dirent.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fizzgen {

/// A file by identity: device and inode (a pipe's inode, for pipes).
struct file_id {
  dev_t dev = 0;
  ino_t ino = 0;
  bool operator==(file_id const&) const = default;
};

/// Why a buffer may not be rewritten in place (--stats counts them).
enum class taint : std::uint8_t {
  none,
  not_yet,           ///< the readers have not been inspected yet (the run just began)
  not_a_pipe,        ///< the output is not a pipe we can identify
  proc_unreadable,   ///< /proc could not be read
  nested_namespace,  ///< fizzgen runs in a nested pid namespace: holders outside it are invisible
  no_reader,         ///< no process holding the read end was found
  forwarder,         ///< a reader holds another pipe, a socket or an io_uring
  uninspectable,     ///< a process that may hold the pipe could not be inspected
  readers_changed,   ///< a reader went away, stopped reading or its threads' tables changed
  process_created,   ///< a process was created since the inspection that opened the epoch
  pipe_opened,       ///< someone opened the pipe (through /proc/PID/fd)
  in_pipe,           ///< the buffer had not left our pipe yet
  count,
};
std::string_view to_string(taint t) noexcept;
inline constexpr std::size_t kTaints = static_cast<std::size_t>(taint::count);

struct reader_verdict {
  bool safe = false;           ///< every possible holder seen, and none can forward pages
  taint reason = taint::none;  ///< why not, when not safe
  std::string why;             ///< one line: "readers pv (1234) hold no pipe, socket or io_uring"
  std::vector<pid_t> readers;  ///< processes holding the read end (other than us)
};

/// What is known of our pipe before we write into it, for the whole run.
struct pipe_facts {
  std::optional<file_id> id;  ///< nullopt: fd is not a pipe
  /// The pipe's creation time in seconds since boot, when the pipe is untouched (creation sets
  /// atime = mtime = ctime; any read or write moves one of them). nullopt: unknown, so every
  /// process may have inherited it.
  std::optional<double> birth;
  bool initial_namespace = false;  ///< our pid namespace is the initial one: /proc shows every process
};
/// Reads the facts of the pipe on fd; call before anything is written into it.
pipe_facts pipe_facts_of(int fd);

/// Inspects /proc for the processes holding the read end of the pipe `facts` describe, every thread's
/// descriptor table. Unsafe when unsure: no reader found, /proc unreadable, a reader holding
/// another pipe (either end), a socket or an io_uring, or a process that cannot be inspected and
/// was started after the pipe was created (it may be a setuid child of a reader).
reader_verdict inspect_pipe_readers(pipe_facts const& facts, std::string const& proc_root = "/proc",
                                    std::stop_token const& stop = {});
inline reader_verdict inspect_pipe_readers(int fd) { return inspect_pipe_readers(pipe_facts_of(fd)); }

/// The newest process id handed out in our pid namespace (from /proc/loadavg): when it changes, a
/// process or thread was created since. -1 when unreadable.
long newest_pid(std::string const& proc_root = "/proc");

/// newest_pid() through a descriptor held open: a pread instead of an open, a read and a close
/// (0.9 µs against 3.7 measured; a re-check reads it every time); from
/// /proc/sys/kernel/ns_last_pid where it can be read (the same counter, without the load
/// averages formatted around it: 0.75 µs against 1.2), else from /proc/loadavg. Thread-safe.
class pid_clock {
 public:
  explicit pid_clock(std::string const& proc_root = "/proc");
  ~pid_clock();
  pid_clock(pid_clock const&) = delete;
  pid_clock& operator=(pid_clock const&) = delete;
  /// -1 when unreadable.
  long newest() const;

 private:
  int fd_ = -1;
  bool last_pid_ = false;  ///< fd_ is ns_last_pid (a bare number), not loadavg
};

/// True when every id in (from, to] is a thread of this process or a kernel thread: created, but
/// unable to hold our pipe. False when there are too many to look at, the counter wrapped, or one
/// of them is gone (created and gone between two looks: nobody can say what it held).
bool created_harmless(long from, long to, std::string const& proc_root = "/proc");

/// Counts the opens of a pipe (IN_OPEN through inotify): the only way a process that does not
/// descend from a holder gets the pipe without a socket is to open /proc/PID/fd/N.
class open_counter {
 public:
  explicit open_counter(int fd);
  ~open_counter();
  open_counter(open_counter const&) = delete;
  open_counter& operator=(open_counter const&) = delete;
  /// Opens seen so far (an event queue overflow counts as one more); nullopt when the pipe cannot
  /// be watched, which must be taken as "opened". Thread-safe only under the caller's lock.
  std::optional<std::uint64_t> opens();

 private:
  int inotify_ = -1;
  std::uint64_t opens_ = 0;
};

/// One descriptor table of a process (the main thread's, or a thread's own after
/// unshare(CLONE_FILES)), and what the last look at it saw.
struct table_memory {
  pid_t pid = 0;                          ///< the process
  pid_t tid = 0;                          ///< the task whose table this is (kcmp, pidfd_getfd)
  pid_t self = ::getpid();                ///< this process, for kcmp: one syscall fewer a comparison
  bool watched = false;                   ///< under watch: hold its plain files, to compare them
  int pidfd = -1;                         ///< for duplicating descriptors (-1: not opened, -2: refused)
  std::vector<int> numbers;               ///< every descriptor it held at the last look
  std::vector<int> read_fds;              ///< those that held our pipe for reading
  std::vector<std::pair<int, int>> held;  ///< (its descriptor, our duplicate of it) for its plain files
  /// Its descriptors that were read ends of other pipes, empty at the last look (looked at again
  /// each time: we hold no duplicate of them, which would keep their writers from EPIPE).
  std::vector<int> empty_pipes;
  /// (its descriptor, our open /proc/PID/fdinfo/N of it) for those that held our pipe for
  /// reading, when fdinfo names the inode: a pread of it tells whether the descriptor is still
  /// that end of our pipe for a third of the cost of a stat() through the /proc link.
  std::vector<std::pair<int, int>> read_infos;
  long pipe_mnt_id = -1;  ///< the mount fdinfo names for our pipe (pipefs)
};
/// Closes the descriptors a table_memory holds.
void release(table_memory& memory);

/// The readers a full inspection found, kept under watch for quick re-checks. Each table's
/// /proc/PID[/task/TID] and its fd directory stay open. When a table holds as many descriptors as
/// at the last look (the kernel reports the count as the size of the fd directory), only those are
/// looked at again: a plain file (regular file, /dev/null, a terminal) we hold a duplicate of
/// (pidfd_getfd) by comparing the two (kcmp), any other by stat() through its /proc link. The
/// threads that shared the main table at the scan are checked to share it still (kcmp). A re-check
/// sees what those processes hold now, not new processes: the newest pid tells about those.
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
    pid_t pid = 0;
    int dir = -1;        ///< /proc/PID or /proc/PID/task/TID
    DIR* fds = nullptr;  ///< its fd directory, rewound whenever it is read again
    table_memory memory;
  };
  file_id ours_;                                 ///< our pipe
  std::vector<watched> watched_;                 ///< one per distinct table
  std::vector<std::pair<pid_t, pid_t>> shared_;  ///< (leader, thread) that shared a table at the scan
  std::size_t readers_ = 0;
  bool complete_ = false;  ///< every reader could be opened
};

}  // namespace fizzgen
