#include "output/sys.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>

namespace fizzgen::sys {
namespace {

ssize_t real_read(int fd, void* buf, std::size_t len) { return ::read(fd, buf, len); }
ssize_t real_pread(int fd, void* buf, std::size_t len, off_t offset) { return ::pread(fd, buf, len, offset); }
ssize_t real_write(int fd, void const* buf, std::size_t len) { return ::write(fd, buf, len); }
ssize_t real_vmsplice(int fd, iovec const* iov, unsigned long n, unsigned flags) {
  return ::vmsplice(fd, iov, n, flags);
}
ssize_t real_splice(int in, loff_t* in_off, int out, loff_t* out_off, std::size_t len, unsigned flags) {
  return ::splice(in, in_off, out, out_off, len, flags);
}
int real_fcntl(int fd, int cmd, int arg) { return ::fcntl(fd, cmd, arg); }
int real_madvise(void* addr, std::size_t len, int advice) { return ::madvise(addr, len, advice); }
int real_poll_out(int fd) {
  pollfd p{fd, POLLOUT, 0};
  return ::poll(&p, 1, -1);
}
int real_poll_in(int fd, int timeout_ms) {
  pollfd p{fd, POLLIN, 0};
  int const r = ::poll(&p, 1, timeout_ms);
  // POLLHUP (the writer closed) and POLLERR also end a wait: the next read says what happened.
  return r > 0 && (p.revents & (POLLIN | POLLHUP | POLLERR)) == 0 ? 0 : r;
}

constexpr ops kReal{real_read,    real_write,    real_vmsplice, real_splice, real_fcntl,
                    real_madvise, real_poll_out, real_poll_in,  real_pread};
ops live = kReal;

/// Calls f until it does not fail with EINTR; -errno on failure.
template <class F>
auto retry(F f) noexcept {
  for (;;) {
    auto r = f();
    if (r >= 0) return r;
    if (errno != EINTR) return static_cast<decltype(r)>(-errno);
  }
}

}  // namespace

ops& table() noexcept { return live; }
ops const& real() noexcept { return kReal; }

ssize_t read(int fd, void* buf, std::size_t len) noexcept {
  return retry([&] { return live.read(fd, buf, len); });
}
ssize_t write(int fd, void const* buf, std::size_t len) noexcept {
  return retry([&] { return live.write(fd, buf, len); });
}
ssize_t vmsplice(int fd, iovec const* iov, unsigned long n, unsigned flags) noexcept {
  return retry([&] { return live.vmsplice(fd, iov, n, flags); });
}
ssize_t splice(int in, loff_t* in_off, int out, loff_t* out_off, std::size_t len, unsigned flags) noexcept {
  return retry([&] { return live.splice(in, in_off, out, out_off, len, flags); });
}
int fcntl(int fd, int cmd, int arg) noexcept {
  return retry([&] { return live.fcntl(fd, cmd, arg); });
}
int madvise(void* addr, std::size_t len, int advice) noexcept {
  return retry([&] { return live.madvise(addr, len, advice); });
}
int poll_out(int fd) noexcept {
  return retry([&] { return live.poll_out(fd); });
}
int poll_in(int fd, int timeout_ms) noexcept {
  return retry([&] { return live.poll_in(fd, timeout_ms); });
}
ssize_t pread(int fd, void* buf, std::size_t len, off_t offset) noexcept {
  return retry([&] { return live.pread(fd, buf, len, offset); });
}

}  // namespace fizzgen::sys
