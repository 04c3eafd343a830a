#include "verify/check_streams.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <string>
#include <vector>

#include "output/sys.hpp"

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
      ssize_t const n = sys::read(fd, got.data() + have, kBlock - have);  // EINTR retried there
      if (n < 0) {
        std::fprintf(err, "fizzgen check: read error after %" PRIu64 " bytes: %s\n", total + have,
                     std::strerror(static_cast<int>(-n)));
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

int check_yes_main(std::string_view line, std::optional<std::uint64_t> lines, std::optional<std::uint64_t> bytes,
                   int fd, std::FILE* out, std::FILE* err) {
  constexpr std::size_t kBlock = std::size_t{1} << 20;
  std::string const period = std::string(line) + '\n';
  // The stream from any offset o is `pattern` from o mod period: one memcmp per block.
  std::string pattern;
  while (pattern.size() < kBlock + period.size()) pattern += period;
  std::vector<char> got(kBlock);
  std::uint64_t total = 0;
  for (;;) {
    ssize_t const n = sys::read(fd, got.data(), kBlock);  // EINTR retried there
    if (n < 0) {
      std::fprintf(err, "fizzgen check: read error after %" PRIu64 " bytes: %s\n", total,
                   std::strerror(static_cast<int>(-n)));
      return 1;
    }
    if (n == 0) break;
    auto const have = static_cast<std::size_t>(n);
    char const* const want = pattern.data() + total % period.size();
    if (std::memcmp(got.data(), want, have) != 0) {
      std::size_t at = 0;
      while (got[at] == want[at]) ++at;
      std::uint64_t const bad = total + at;
      std::uint64_t const line_start = bad - bad % period.size();
      // What the bad line holds, as far as this block shows it.
      std::size_t const from = line_start >= total ? static_cast<std::size_t>(line_start - total) : 0;
      std::size_t end = from;
      while (end < have && got[end] != '\n' && end - from < 200) ++end;
      std::fprintf(out, "fizzgen check: FAIL: line %" PRIu64 " (byte %" PRIu64 "): expected \"%.*s\", got \"%.*s\"\n",
                   line_start / period.size() + 1, line_start,
                   static_cast<int>(std::min<std::size_t>(line.size(), 200)), line.data(), static_cast<int>(end - from),
                   got.data() + from);
      return 1;
    }
    total += have;
  }
  std::uint64_t const whole = total / period.size();
  bool const cut = total % period.size() != 0;
  auto const plural = [](std::uint64_t n, char const* one, char const* many) { return n == 1 ? one : many; };
  if (bytes && total != *bytes) {
    std::fprintf(out, "fizzgen check: FAIL: %" PRIu64 " bytes arrived, %" PRIu64 " expected (%s)\n", total, *bytes,
                 total < *bytes ? "the stream ended early" : "the stream went on");
    return 1;
  }
  if (lines && (whole != *lines || (cut && !bytes))) {
    std::fprintf(out, "fizzgen check: FAIL: %" PRIu64 " %s arrived%s, %" PRIu64 " expected\n", whole,
                 plural(whole, "line", "lines"), cut ? " and part of one" : "", *lines);
    return 1;
  }
  if (cut && !bytes) {
    std::fprintf(out, "fizzgen check: FAIL: the last line (%" PRIu64 ") is cut short\n", whole + 1);
    return 1;
  }
  if (!bytes && !lines && total == 0) {
    std::fprintf(out, "fizzgen check: FAIL: nothing arrived (--count 0 says that nothing must)\n");
    return 1;
  }
  std::fprintf(out, "fizzgen check: OK: %" PRIu64 " %s, %" PRIu64 " %s%s\n", whole, plural(whole, "line", "lines"),
               total, plural(total, "byte", "bytes"), cut ? " (final line cut off)" : "");
  return 0;
}

std::string decoded_word(std::string_view word) {
  std::string out;
  for (char c : word) {
    if (c >= 'a' && c <= 'z') {
      out += static_cast<char>(c - 'a' + 'A');
    } else if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               std::string_view(" .,?'!/():;=+-_\"$@`").find(c) != std::string_view::npos) {
      out += c;  // its code decodes to itself
    } else if (c == '*') {
      out += 'X';  // these share a code with another character, which decoding gives
    } else if (c == '<' || c == '[' || c == '{') {
      out += '(';
    } else if (c == '>' || c == ']' || c == '}') {
      out += ')';
    } else if (c == '\\' || c == '|') {
      out += '/';
    } else if (c == '%') {
      out += "0/0";  // written as three codes
    } else if (c == '&') {
      out += "ES";  // written as two
    }
    // Anything else has no code: the encoder writes nothing for it.
  }
  return out;
}

}  // namespace fizzgen::check
