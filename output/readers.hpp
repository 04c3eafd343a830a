#pragma once
// Who reads our pipe, and could they forward our pages? A reader that splice(2)s or tee(2)s the
// pipe into another pipe or a socket passes references to our pages downstream, so rewriting a
// buffer after it left our pipe could still change what the next program reads. A process can
// only forward into a pipe or socket it holds, so readers whose descriptors include none are safe.

#include <sys/types.h>
#include <string>
#include <vector>

namespace fizzgen {

struct reader_verdict {
  bool safe = false;           ///< every reader found, and none can forward pages
  std::string why;             ///< one line: "readers pv (1234): no pipe or socket to forward into"
  std::vector<pid_t> readers;  ///< processes holding the read end (other than us)
};

/// Inspects /proc for the processes holding the read end of the pipe on fd. Unsure (no reader
/// found, /proc unreadable, a reader with a socket or the write end of another pipe) means not
/// safe.
reader_verdict inspect_pipe_readers(int fd, std::string const& proc_root = "/proc");

/// The same verdict for the given readers only (found by a full inspection before): cheap enough
/// to repeat every few milliseconds. A reader gone, or no longer reading, means not safe.
reader_verdict recheck_pipe_readers(int fd, std::vector<pid_t> const& readers, std::string const& proc_root = "/proc");

}  // namespace fizzgen
