// The pipe's ceiling: vmsplice the same constant buffers into stdout again and again. Constant
// data is always safe to re-splice, so this is the most any pipe writer can reach on this machine.
// Usage: vmsplice_ceiling [--block] [--chunk BYTES] [--bytes TOTAL] | pv >/dev/null
// Default: SPLICE_F_NONBLOCK in a spin, 1 MiB chunks, 1 MiB pipe, unbounded.

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string_view>

int main(int argc, char** argv) {
  bool block = false;
  std::size_t chunk = std::size_t{1} << 20;
  std::uint64_t total = UINT64_MAX;
  for (int i = 1; i < argc; ++i) {
    std::string_view const a = argv[i];
    if (a == "--block")
      block = true;
    else if (a == "--chunk" && i + 1 < argc)
      chunk = std::strtoull(argv[++i], nullptr, 10);
    else if (a == "--bytes" && i + 1 < argc)
      total = std::strtoull(argv[++i], nullptr, 10);
    else {
      std::fprintf(stderr, "usage: vmsplice_ceiling [--block] [--chunk BYTES] [--bytes TOTAL]\n");
      return 2;
    }
  }
  std::signal(SIGPIPE, SIG_IGN);
  ::fcntl(STDOUT_FILENO, F_SETPIPE_SZ, 1 << 20);
  // Two 2 MiB-aligned huge-page buffers of '\n'-terminated lines, filled once and never changed.
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  std::size_t const size = (chunk + kHuge - 1) / kHuge * kHuge;
  void* mem = nullptr;
  if (posix_memalign(&mem, kHuge, 2 * size) != 0) return 1;
  ::madvise(mem, 2 * size, MADV_HUGEPAGE);
  std::memset(mem, 'y', 2 * size);
  auto* bytes = static_cast<char*>(mem);
  for (std::size_t i = 1; i < 2 * size; i += 2) bytes[i] = '\n';

  unsigned const flags = block ? 0 : SPLICE_F_NONBLOCK;
  std::uint64_t sent = 0;
  for (unsigned b = 0; sent < total; b ^= 1) {
    char* p = bytes + b * size;
    std::size_t left = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, total - sent));
    while (left > 0) {
      iovec iov{p, left};
      ssize_t const n = ::vmsplice(STDOUT_FILENO, &iov, 1, flags);
      if (n < 0) {
        if (errno == EAGAIN || errno == EINTR) continue;
        return errno == EPIPE ? 0 : 1;
      }
      p += n;
      left -= static_cast<std::size_t>(n);
      sent += static_cast<std::uint64_t>(n);
    }
  }
  return 0;
}
