#include "output/readers.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string_view>

namespace fizzgen {
namespace {

/// The target of /proc/PID/fd/N ("pipe:[123]", "socket:[45]", "/dev/null"), or "" when unreadable.
std::string link_target(std::string const& path) {
  char buf[256];
  ssize_t const n = ::readlink(path.c_str(), buf, sizeof buf - 1);
  return n < 0 ? std::string() : std::string(buf, static_cast<std::size_t>(n));
}

/// The access mode from /proc/PID/fdinfo/N ("flags: 0100000" is octal), nullopt when unreadable.
std::optional<int> access_mode(std::string const& fdinfo) {
  std::ifstream in(fdinfo);
  std::string key;
  while (in >> key) {
    if (key == "flags:") {
      std::string octal;
      in >> octal;
      return static_cast<int>(std::strtol(octal.c_str(), nullptr, 8)) & O_ACCMODE;
    }
  }
  return std::nullopt;
}

std::string process_name(std::string const& dir) {
  std::ifstream in(dir + "/comm");
  std::string name;
  std::getline(in, name);
  return name.empty() ? "?" : name;
}

/// Calls f(fd_number, link_target) for every descriptor of the process; false if unreadable.
template <class F>
bool for_each_fd(std::string const& pid_dir, F f) {
  DIR* d = ::opendir((pid_dir + "/fd").c_str());
  if (d == nullptr) return false;
  while (dirent* e = ::readdir(d)) {
    if (e->d_name[0] == '.') continue;
    f(std::string(e->d_name), link_target(pid_dir + "/fd/" + e->d_name));
  }
  ::closedir(d);
  return true;
}

}  // namespace

namespace {

/// What one process holds: our pipe's read end? a pipe write end or socket it could forward into?
struct process_view {
  bool readable = false, reads_ours = false;
  std::string forward;  ///< a pipe or socket this process could splice into, "" if none
};

process_view inspect_process(std::string const& dir, std::string const& ours) {
  process_view p;
  std::vector<std::pair<std::string, std::string>> pipes;  // (fd, target) of other pipes
  p.readable = for_each_fd(dir, [&](std::string const& n, std::string const& target) {
    if (target == ours) {
      auto const mode = access_mode(dir + "/fdinfo/" + n);
      if (!mode || *mode != O_WRONLY) p.reads_ours = true;  // unknown counts as a reader
    } else if (target.starts_with("socket:")) {
      p.forward = target;
    } else if (target.starts_with("pipe:")) {
      pipes.emplace_back(n, target);
    }
  });
  // Access modes of other pipes matter only for readers (fdinfo reads are the costly part).
  if (p.reads_ours && p.forward.empty()) {
    for (auto const& [n, target] : pipes) {
      auto const mode = access_mode(dir + "/fdinfo/" + n);
      if (!mode || *mode != O_RDONLY) {  // only a write end can be spliced into
        p.forward = target;
        break;
      }
    }
  }
  return p;
}

/// The pipe:[inode] name of fd, "" when fd is not a pipe.
std::string pipe_name(int fd) {
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) return "";
  return "pipe:[" + std::to_string(st.st_ino) + "]";
}

/// Adds process pid to the verdict being built; unsafe collects the first reason to distrust.
void add_process(reader_verdict& v, std::string& unsafe, std::string const& proc_root, std::string const& pid,
                 std::string const& ours, bool names = true) {
  std::string const dir = proc_root + "/" + pid;
  process_view const p = inspect_process(dir, ours);
  // A process we may not inspect (another user's) is skipped: if it is the reader, no reader is
  // found and the verdict stays unsafe.
  if (!p.readable || !p.reads_ours) return;
  v.readers.push_back(static_cast<pid_t>(std::strtol(pid.c_str(), nullptr, 10)));
  std::string const who = (names ? process_name(dir) : std::string("pid")) + " (" + pid + ")";
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
  std::string const ours = pipe_name(fd);
  if (ours.empty()) {
    v.why = "output is not a pipe";
    return v;
  }
  DIR* proc = ::opendir(proc_root.c_str());
  if (proc == nullptr) {
    v.why = "cannot read " + proc_root;
    return v;
  }
  std::string const self = std::to_string(::getpid());
  std::string unsafe;
  while (dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    long const pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || e->d_name == self) continue;
    add_process(v, unsafe, proc_root, e->d_name, ours);
  }
  ::closedir(proc);
  conclude(v, unsafe);
  return v;
}

reader_verdict recheck_pipe_readers(int fd, std::vector<pid_t> const& readers, std::string const& proc_root) {
  reader_verdict v;
  std::string const ours = pipe_name(fd);
  std::string unsafe;
  if (!ours.empty())
    for (pid_t pid : readers) add_process(v, unsafe, proc_root, std::to_string(pid), ours, false);
  // A reader gone or no longer reading: someone else may hold the pipe now.
  if (v.readers.size() != readers.size() && unsafe.empty()) unsafe = "the pipe's readers changed";
  conclude(v, unsafe);
  return v;
}

}  // namespace fizzgen
