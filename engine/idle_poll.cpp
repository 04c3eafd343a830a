#include "engine/idle_poll.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

namespace fizzgen {

idle_poll_request::idle_poll_request(char const* device) {
  int const fd = ::open(device, O_WRONLY | O_CLOEXEC);
  if (fd < 0) {
    why_ = std::string(device) + ": " + std::strerror(errno);
    return;
  }
  // The limit is a binary s32 in microseconds; the request lasts until the descriptor is closed.
  std::int32_t const microseconds = 0;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISCHR(st.st_mode)) {
    why_ = std::string(device) + ": not a device";
  } else if (::write(fd, &microseconds, sizeof microseconds) != static_cast<ssize_t>(sizeof microseconds)) {
    why_ = std::string(device) + ": " + std::strerror(errno);
  } else {
    fd_ = fd;
    return;
  }
  ::close(fd);
}

idle_poll_request::~idle_poll_request() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace fizzgen
