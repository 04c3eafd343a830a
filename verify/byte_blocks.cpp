#include "verify/byte_blocks.hpp"

#include <unistd.h>

#include "verify/input.hpp"

namespace fizzgen::check {

std::size_t read_block(int fd, char* data, std::size_t size, int& error) {
  std::size_t have = 0;
  while (have < size) {
    ssize_t const n = read_input(fd, data + have, size - have);  // EINTR retried there
    if (n < 0) {
      error = static_cast<int>(-n);
      break;
    }
    if (n == 0) break;
    have += static_cast<std::size_t>(n);
  }
  return have;
}

}  // namespace fizzgen::check
