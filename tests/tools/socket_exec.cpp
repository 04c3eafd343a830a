// Runs a program with a connected stream socket as its stdout and copies what arrives on the other
// end to our stdout (read/write), so a socket writer can be piped into `fizzgen check`.
//
//   socket_exec unix|tcp PROGRAM [ARG...]
//     unix: a listening AF_UNIX socket (abstract address), tcp: a listening socket on 127.0.0.1
//     (port chosen by the kernel); we connect to it, accept, and give the connected end to PROGRAM.
// Exits with PROGRAM's status (128 + signal when it was killed by one).

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

[[noreturn]] void die(char const* what) {
  std::fprintf(stderr, "socket_exec: %s: %s\n", what, std::strerror(errno));
  std::exit(125);
}

/// Listens on a fresh address of the family, connects to it; returns {connected, accepted}.
std::pair<int, int> connected_pair(bool tcp) {
  int const listener = ::socket(tcp ? AF_INET : AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (listener < 0) die("socket");
  sockaddr_storage addr{};
  socklen_t len = 0;
  if (tcp) {
    auto* in = reinterpret_cast<sockaddr_in*>(&addr);
    in->sin_family = AF_INET;
    in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    in->sin_port = 0;
    len = sizeof(sockaddr_in);
  } else {
    auto* un = reinterpret_cast<sockaddr_un*>(&addr);
    un->sun_family = AF_UNIX;
    std::string const name = "fizzgen-socket-exec-" + std::to_string(::getpid());
    std::memcpy(un->sun_path + 1, name.data(), name.size());  // abstract: sun_path[0] == '\0'
    len = static_cast<socklen_t>(offsetof(sockaddr_un, sun_path) + 1 + name.size());
  }
  if (::bind(listener, reinterpret_cast<sockaddr*>(&addr), len) != 0) die("bind");
  if (::listen(listener, 1) != 0) die("listen");
  if (::getsockname(listener, reinterpret_cast<sockaddr*>(&addr), &len) != 0) die("getsockname");
  int const client = ::socket(tcp ? AF_INET : AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (client < 0) die("socket");
  if (::connect(client, reinterpret_cast<sockaddr*>(&addr), len) != 0) die("connect");
  int const server = ::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
  if (server < 0) die("accept");
  ::close(listener);
  return {client, server};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || (std::strcmp(argv[1], "unix") != 0 && std::strcmp(argv[1], "tcp") != 0)) {
    std::fprintf(stderr, "usage: socket_exec unix|tcp PROGRAM [ARG...]\n");
    return 2;
  }
  auto const [client, server] = connected_pair(std::strcmp(argv[1], "tcp") == 0);
  pid_t const child = ::fork();
  if (child < 0) die("fork");
  if (child == 0) {
    if (::dup2(client, 1) != 1) die("dup2");  // dup2 clears FD_CLOEXEC on fd 1
    ::execvp(argv[2], argv + 2);
    die(argv[2]);
  }
  ::close(client);
  std::signal(SIGPIPE, SIG_IGN);  // a reader gone downstream shows as EPIPE below
  std::vector<char> buf(1 << 16);
  bool downstream_gone = false;
  for (;;) {
    ssize_t const n = ::read(server, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) die("read");
    if (n == 0) break;
    for (ssize_t done = 0; done < n && !downstream_gone;) {
      ssize_t const w = ::write(1, buf.data() + done, static_cast<std::size_t>(n - done));
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && errno == EPIPE)
        downstream_gone = true;
      else if (w < 0)
        die("write");
      else
        done += w;
    }
    if (downstream_gone) break;
  }
  ::close(server);  // the writer sees EPIPE if it is still writing
  int status = 0;
  while (::waitpid(child, &status, 0) < 0)
    if (errno != EINTR) die("waitpid");
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
