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

reader_verdict inspect_pipe_readers(int fd, std::string const& proc_root) {
  reader_verdict v;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
    v.why = "output is not a pipe";
    return v;
  }
  std::string const ours = "pipe:[" + std::to_string(st.st_ino) + "]";
  pid_t const self = ::getpid();
  // Pipes fizzgen itself holds besides its output come from the common environment (a
  // supervisor's log pipe, a leaked descriptor): a reader holding one of them elsewhere than on its
  // stdout is not taken for a forwarder. A reader's stdout always counts.
  std::vector<std::string> shared;
  for_each_fd(proc_root + "/self", [&](std::string const&, std::string const& target) {
    if (target.starts_with("pipe:") && target != ours) shared.push_back(target);
  });
  auto is_shared = [&](std::string const& target) {
    for (auto const& t : shared)
      if (t == target) return true;
    return false;
  };
  DIR* proc = ::opendir(proc_root.c_str());
  if (proc == nullptr) {
    v.why = "cannot read " + proc_root;
    return v;
  }
  std::string unsafe;  // the first reason a reader could forward, if any
  while (dirent* e = ::readdir(proc)) {
    char* end = nullptr;
    long const pid = std::strtol(e->d_name, &end, 10);
    if (*end != '\0' || pid <= 0 || pid == self) continue;
    std::string const dir = proc_root + "/" + e->d_name;
    bool reads_ours = false;
    std::string forward;  // a pipe or socket this process could splice into
    bool const readable = for_each_fd(dir, [&](std::string const& n, std::string const& target) {
      if (target == ours) {
        auto const mode = access_mode(dir + "/fdinfo/" + n);
        if (!mode || *mode != O_WRONLY) reads_ours = true;  // unknown counts as a reader
      } else if (target.starts_with("socket:")) {
        forward = target;
      } else if (target.starts_with("pipe:")) {
        auto const mode = access_mode(dir + "/fdinfo/" + n);
        bool const writable = !mode || *mode != O_RDONLY;  // only a write end can be spliced into
        if (writable && (n == "1" || !is_shared(target))) forward = target;
      }
    });
    // A process we may not inspect (another user's) is skipped: if it is the reader, no reader is
    // found and the verdict stays unsafe.
    if (!readable) continue;
    if (!reads_ours) continue;
    v.readers.push_back(static_cast<pid_t>(pid));
    std::string const who = process_name(dir) + " (" + e->d_name + ")";
    if (!forward.empty() && unsafe.empty()) unsafe = "reader " + who + " holds " + forward + " and could forward pages";
    v.why += (v.why.empty() ? "" : ", ") + who;
  }
  ::closedir(proc);
  if (v.readers.empty()) {
    v.why = "no reader of the pipe found";
  } else if (!unsafe.empty()) {
    v.why = unsafe;
  } else {
    v.safe = true;
    v.why = "readers " + v.why + " hold no pipe or socket to forward into";
  }
  return v;
}

}  // namespace fizzgen
