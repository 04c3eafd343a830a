// Takes hold of a pipe after the fact, the way a process that was never its reader can: opens
// /proc/PID/fd/N of a process holding it, or receives the descriptor over a unix socket
// (SCM_RIGHTS). Then it splices a few chunks of it into a pipe of its own, lets go of the pipe it
// took, and keeps the parked pages until told to write them out.
//
//   pipe_grabber (-p PATH | -P PIDFILE:FD | -l SOCKET) -n BYTES [-d SLEEP_US] [-t MS]
//     -p PATH         open PATH read-only (/proc/PID/fd/N)
//     -P PIDFILE:FD   wait until PIDFILE holds a pid (a line), then open /proc/PID/fd/FD read-only
//     -l SOCKET       bind a unix stream socket at path SOCKET, accept one connection, receive one
//                     descriptor from it with SCM_RIGHTS, close both sockets
//     -d SLEEP_US     sleep before taking hold (after the pid file is there; before listening with
//                     -l; default 0)
//     -n BYTES        splice BYTES of the pipe into a pipe created then (grown to hold them), then
//                     close the descriptor taken
//     -t MS           keep the parked bytes until SIGUSR1 arrives, or MS milliseconds went by
//                     (default 20000), then read(2) them back and write them to stdout
// Exits 0, 1 on errors (one line on stderr).

#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <string>
#include <vector>

#include "tool_util.hpp"

char const* const kToolName = "pipe_grabber";
bool const kQuietOnEpipe = false;

namespace {

/// "PIDFILE:FD": waits (up to 10 s) for a whole line in PIDFILE; "/proc/PID/fd/FD".
std::string proc_path(std::string const& spec) {
  std::size_t const colon = spec.rfind(':');
  if (colon == std::string::npos) {
    std::fprintf(stderr, "pipe_grabber: -P wants PIDFILE:FD, not '%s'\n", spec.c_str());
    std::exit(2);
  }
  std::string const file = spec.substr(0, colon);
  for (int tries = 0; tries < 10000; ++tries) {
    std::ifstream in(file);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!text.empty() && text.back() == '\n') {
      text.pop_back();
      return "/proc/" + text + "/fd/" + spec.substr(colon + 1);
    }
    ::usleep(1000);
  }
  errno = ETIMEDOUT;
  die(file.c_str());
}

/// Listens at path, accepts one connection, receives one descriptor; the descriptor.
int receive(char const* path) {
  int const listener = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) die("socket");
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (std::strlen(path) >= sizeof addr.sun_path) {
    errno = ENAMETOOLONG;
    die(path);
  }
  std::strcpy(addr.sun_path, path);
  ::unlink(path);
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) die("bind");
  if (::listen(listener, 1) != 0) die("listen");
  int const conn = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (conn < 0) die("accept");
  char byte = 0;
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  if (::recvmsg(conn, &msg, MSG_CMSG_CLOEXEC) <= 0) die("recvmsg");
  cmsghdr const* c = CMSG_FIRSTHDR(&msg);
  if (c == nullptr || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS) {
    errno = EPROTO;
    die("no descriptor received");
  }
  int fd = -1;
  std::memcpy(&fd, CMSG_DATA(c), sizeof fd);
  ::close(conn);
  ::close(listener);
  return fd;
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  char const* socket_path = nullptr;
  std::size_t parked = 0;
  unsigned long pause = 0, hold_ms = 20000;
  int opt;
  while ((opt = ::getopt(argc, argv, "p:P:l:n:d:t:")) != -1) {
    switch (opt) {
      case 'p':
        path = optarg;
        break;
      case 'P':
        path = proc_path(optarg);
        break;
      case 'l':
        socket_path = optarg;
        break;
      case 'n':
        parked = number(optarg);
        break;
      case 'd':
        pause = number(optarg);
        break;
      case 't':
        hold_ms = number(optarg);
        break;
      default:
        return 2;
    }
  }
  if (parked == 0 || path.empty() == (socket_path == nullptr)) {
    std::fprintf(stderr, "usage: pipe_grabber (-p PATH | -P PIDFILE:FD | -l SOCKET) -n BYTES [-d SLEEP_US] [-t MS]\n");
    return 2;
  }
  sigset_t usr1;
  sigemptyset(&usr1);
  sigaddset(&usr1, SIGUSR1);
  if (::sigprocmask(SIG_BLOCK, &usr1, nullptr) != 0) die("sigprocmask");

  if (pause > 0) ::usleep(static_cast<useconds_t>(pause));
  int const taken = socket_path != nullptr ? receive(socket_path) : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (taken < 0) die(path.c_str());
  struct stat st {};
  if (::fstat(taken, &st) != 0 || !S_ISFIFO(st.st_mode)) {
    errno = EINVAL;
    die("what was taken is not a pipe");
  }

  // Park, let go.
  int p[2];
  if (::pipe2(p, O_CLOEXEC) != 0) die("pipe");
  if (::fcntl(p[1], F_SETPIPE_SZ, static_cast<int>(std::max<std::size_t>(4 * parked, 1 << 20))) < 0)
    die("F_SETPIPE_SZ");
  for (std::size_t left = parked; left > 0;) {
    ssize_t const r = ::splice(taken, nullptr, p[1], nullptr, left, SPLICE_F_MOVE);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) die("splice into the park pipe");
    if (r == 0) {
      errno = EIO;
      die("end of input before the park was full");
    }
    left -= static_cast<std::size_t>(r);
  }
  ::close(taken);
  ::close(p[1]);

  // Hold, then write out.
  timespec const limit{static_cast<time_t>(hold_ms / 1000), static_cast<long>(hold_ms % 1000) * 1000000L};
  while (::sigtimedwait(&usr1, nullptr, &limit) < 0 && errno == EINTR) {
  }
  std::vector<char> buf(65536);
  for (std::size_t left = parked; left > 0;) {
    ssize_t const n = ::read(p[0], buf.data(), std::min(buf.size(), left));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) die("reading the park pipe back");
    for (ssize_t done = 0; done < n;) {
      ssize_t const w = ::write(1, buf.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0) die("write");
      done += w;
    }
    left -= static_cast<std::size_t>(n);
  }
  return 0;
}
