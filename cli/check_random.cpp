#include "cli/check_random.hpp"

#include <unistd.h>

#include <bit>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <vector>

namespace fizzgen::check {
namespace {

/// splitmix64, written out the obvious way: the state goes up by the golden gamma, each output
/// is the state mixed.
class splitmix64 {
 public:
  explicit splitmix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    state_ += 0x9e3779b97f4a7c15u;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

}  // namespace

int check_random_main(std::uint64_t seed, std::optional<std::uint64_t> bytes, int fd, std::FILE* out, std::FILE* err) {
  constexpr std::size_t kBlock = std::size_t{1} << 20;  // a multiple of 8: blocks start on words
  std::vector<unsigned char> got(kBlock), want(kBlock);
  splitmix64 words(seed);
  std::uint64_t total = 0;
  for (;;) {
    // Fill a whole block (a pipe hands out what it holds), so each block is whole words.
    std::size_t have = 0;
    while (have < kBlock) {
      ssize_t const n = ::read(fd, got.data() + have, kBlock - have);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        std::fprintf(err, "fizzgen check: read error after %" PRIu64 " bytes: %s\n", total + have,
                     std::strerror(errno));
        return 1;
      }
      if (n == 0) break;
      have += static_cast<std::size_t>(n);
    }
    for (std::size_t i = 0; i < have; i += 8) {
      std::uint64_t const w = words.next();
      if constexpr (std::endian::native == std::endian::little) {
        std::memcpy(want.data() + i, &w, 8);  // the same bytes as the loop below, at once
      } else {
        for (std::size_t b = 0; b < 8; ++b) want[i + b] = static_cast<unsigned char>(w >> (8 * b));
      }
    }
    if (std::memcmp(got.data(), want.data(), have) != 0) {
      std::size_t at = 0;
      while (got[at] == want[at]) ++at;
      std::fprintf(out,
                   "fizzgen check: FAIL: byte %" PRIu64 " (word %" PRIu64
                   "): expected 0x%02x, got 0x%02x "
                   "(random --seed %" PRIu64 ")\n",
                   total + at, (total + at) / 8, want[at], got[at], seed);
      return 1;
    }
    total += have;
    if (have < kBlock) break;
  }
  if (bytes && total != *bytes) {
    std::fprintf(out, "fizzgen check: FAIL: %" PRIu64 " bytes arrived, %" PRIu64 " expected (%s)\n", total, *bytes,
                 total < *bytes ? "the stream ended early" : "the stream went on");
    return 1;
  }
  if (!bytes && total == 0) {
    std::fprintf(out, "fizzgen check: FAIL: nothing arrived (--bytes 0 says that nothing must)\n");
    return 1;
  }
  std::fprintf(out, "fizzgen check: OK: %" PRIu64 " %s of random --seed %" PRIu64 "\n", total,
               total == 1 ? "byte" : "bytes", seed);
  return 0;
}

}  // namespace fizzgen::check
