#pragma once
// The one seam every syscall of the data path goes through, in and out: read, pread, write,
// vmsplice, splice, fcntl, madvise, poll. Each wrapper retries EINTR (here, and nowhere else) and returns the
// result or -errno (kernel style), so the hot path never touches errno or exceptions. Tests replace
// `sys::table()` entries to inject EAGAIN, EPIPE, EIO, short reads and writes, EPERM...

#include <sys/types.h>
#include <sys/uio.h>

#include <cstddef>

namespace fizzgen::sys {

struct ops {
  ssize_t (*read)(int fd, void* buf, std::size_t len);
  ssize_t (*write)(int fd, void const* buf, std::size_t len);
  ssize_t (*vmsplice)(int fd, iovec const* iov, unsigned long n, unsigned flags);
  ssize_t (*splice)(int in, loff_t* in_off, int out, loff_t* out_off, std::size_t len, unsigned flags);
  int (*fcntl)(int fd, int cmd, int arg);
  int (*madvise)(void* addr, std::size_t len, int advice);
  int (*poll_out)(int fd);  ///< waits until fd is writable
  /// poll(2) for POLLIN: > 0 when fd is readable (or at its end), 0 after timeout_ms (-1: none).
  int (*poll_in)(int fd, int timeout_ms);
  ssize_t (*pread)(int fd, void* buf, std::size_t len, off_t offset);
};

/// The live table; tests swap entries and restore them.
ops& table() noexcept;
/// The real syscalls.
ops const& real() noexcept;

ssize_t read(int fd, void* buf, std::size_t len) noexcept;
ssize_t write(int fd, void const* buf, std::size_t len) noexcept;
ssize_t vmsplice(int fd, iovec const* iov, unsigned long n, unsigned flags) noexcept;
ssize_t splice(int in, loff_t* in_off, int out, loff_t* out_off, std::size_t len, unsigned flags) noexcept;
/// fcntl with an int argument.
int fcntl(int fd, int cmd, int arg) noexcept;
int madvise(void* addr, std::size_t len, int advice) noexcept;
int poll_out(int fd) noexcept;
int poll_in(int fd, int timeout_ms) noexcept;
/// pread(2): from `offset`, leaving the fd's own offset alone (any thread, any order).
ssize_t pread(int fd, void* buf, std::size_t len, off_t offset) noexcept;

}  // namespace fizzgen::sys
