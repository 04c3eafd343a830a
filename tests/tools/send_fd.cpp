// Hands a descriptor (its stdin by default) to another process over a unix socket (SCM_RIGHTS),
// closes the socket and exits: a process that held the pipe without reading gives it away.
//
//   send_fd [-d SLEEP_US] SOCKET [FD]
//     -d SLEEP_US  sleep first (default 0)
//     SOCKET       path of a listening unix stream socket; connecting is retried for up to 10 s
//     FD           the descriptor to send (default 0)
// Exits 0, 1 on errors (one line on stderr).

#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "tool_util.hpp"

char const* const kToolName = "send_fd";
bool const kQuietOnEpipe = false;

namespace {}  // namespace

int main(int argc, char** argv) {
  unsigned long pause = 0;
  int opt;
  while ((opt = ::getopt(argc, argv, "d:")) != -1) {
    switch (opt) {
      case 'd':
        pause = number(optarg);
        break;
      default:
        return 2;
    }
  }
  if (optind >= argc || argc - optind > 2) {
    std::fprintf(stderr, "usage: send_fd [-d SLEEP_US] SOCKET [FD]\n");
    return 2;
  }
  char const* path = argv[optind];
  int const fd = optind + 1 < argc ? static_cast<int>(number(argv[optind + 1])) : 0;
  if (pause > 0) ::usleep(static_cast<useconds_t>(pause));

  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  if (std::strlen(path) >= sizeof addr.sun_path) {
    errno = ENAMETOOLONG;
    die(path);
  }
  std::strcpy(addr.sun_path, path);
  int const s = ::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) die("socket");
  for (int tries = 0; ::connect(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0; ++tries) {
    if ((errno != ENOENT && errno != ECONNREFUSED) || tries == 10000) die(path);
    ::usleep(1000);
  }
  char byte = 'F';
  iovec iov{&byte, 1};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  cmsghdr* c = CMSG_FIRSTHDR(&msg);
  c->cmsg_level = SOL_SOCKET;
  c->cmsg_type = SCM_RIGHTS;
  c->cmsg_len = CMSG_LEN(sizeof(int));
  std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
  if (::sendmsg(s, &msg, MSG_NOSIGNAL) != 1) die("sendmsg");
  ::close(s);
  return 0;
}
