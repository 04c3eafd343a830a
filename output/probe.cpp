#include "output/probe.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cstring>

#include "output/sys.hpp"

namespace fizzgen {

vmsplice_kind run_vmsplice_probe() noexcept {
  constexpr std::size_t kPage = 4096;
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return vmsplice_kind::broken;
  void* page = ::mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  vmsplice_kind kind = vmsplice_kind::broken;
  if (page != MAP_FAILED) {
    std::memset(page, 'a', kPage);
    iovec iov{page, kPage};
    if (sys::vmsplice(fds[1], &iov, 1, 0) == static_cast<ssize_t>(kPage)) {
      std::memset(page, 'b', kPage);  // after vmsplice returned: does the pipe see this?
      char back[kPage];
      std::size_t got = 0;
      while (got < kPage) {
        ssize_t const n = ::read(fds[0], back + got, kPage - got);
        if (n <= 0) break;
        got += static_cast<std::size_t>(n);
      }
      // Only an untouched copy proves copying; anything else is treated as shared, the safe side.
      if (got == kPage) kind = back[0] == 'a' && back[kPage - 1] == 'a' ? vmsplice_kind::copies : vmsplice_kind::shares;
    }
    ::munmap(page, kPage);
  }
  ::close(fds[0]);
  ::close(fds[1]);
  return kind;
}

vmsplice_kind probe_vmsplice() noexcept {
  static vmsplice_kind const kind = run_vmsplice_probe();
  return kind;
}

char const* to_string(vmsplice_kind k) noexcept {
  switch (k) {
    case vmsplice_kind::shares:
      return "shares pages";
    case vmsplice_kind::copies:
      return "copies";
    case vmsplice_kind::broken:
      return "unusable";
  }
  return "?";
}

}  // namespace fizzgen
