#include "verify/check_streams.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cinttypes>
#include <cstring>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "output/sys.hpp"
#include "pipeline/ordered.hpp"
#include "verify/byte_blocks.hpp"
#include "verify/line_blocks.hpp"

namespace fizzgen::check {
namespace {

constexpr std::uint64_t kGamma = 0x9e3779b97f4a7c15u;

/// splitmix64, written out the obvious way: the state goes up by the golden gamma, each output
/// is the state mixed. Started at position j, it gives the j-th output onwards.
class splitmix64 {
 public:
  splitmix64(std::uint64_t seed, std::uint64_t position) : state_(seed + position * kGamma) {}
  std::uint64_t next() {
    state_ += kGamma;
    std::uint64_t z = state_;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

constexpr std::size_t kBlock = std::size_t{1} << 20;  // a multiple of 8: blocks start on words

/// Where in [data, data + size) the first byte differs from `want`, size when none.
std::size_t first_difference(char const* data, char const* want, std::size_t size) {
  if (std::memcmp(data, want, size) == 0) return size;
  std::size_t at = 0;
  while (data[at] == want[at]) ++at;
  return at;
}

char const* plural(std::uint64_t n, char const* one, char const* many) { return n == 1 ? one : many; }

std::string length_failure(std::uint64_t total, std::uint64_t want) {
  char buf[160];
  std::snprintf(buf, sizeof buf, "fizzgen check: FAIL: %" PRIu64 " bytes arrived, %" PRIu64 " expected (%s)\n", total,
                want, total < want ? "the stream ended early" : "the stream went on");
  return buf;
}

/// The verdict on a yes stream whose lines were all right: `whole` lines and a cut one when
/// `cut`, `total` bytes in all.
int judge_yes(std::uint64_t total, std::uint64_t whole, bool cut, std::optional<std::uint64_t> lines,
              std::optional<std::uint64_t> bytes, std::FILE* out) {
  if (bytes && total != *bytes) {
    std::fputs(length_failure(total, *bytes).c_str(), out);
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

/// The bad line's report: its number, where it starts, what it should be and (up to its newline,
/// at most 200 bytes) what it is.
void print_bad_line(std::FILE* out, std::uint64_t number, std::uint64_t offset, std::string_view want,
                    std::string_view got) {
  got = got.substr(0, std::min<std::size_t>({got.find('\n'), got.size(), 200}));
  std::fprintf(out, "fizzgen check: FAIL: line %" PRIu64 " (byte %" PRIu64 "): expected \"%.*s\", got \"%.*s\"\n",
               number, offset, static_cast<int>(std::min<std::size_t>(want.size(), 200)), want.data(),
               static_cast<int>(got.size()), got.data());
}

/// `text` repeated and cut to length - 1 bytes (what a line of that length holds before '\n').
std::string repeated(std::string_view text, std::size_t length) {
  std::string s;
  for (std::size_t i = 0; i + 1 < length; ++i) s += text[i % text.size()];
  return s;
}

/// check --yes with every line alike: the stream from offset o is `pattern` from o mod the period.
int check_fixed_yes(std::string const& line, std::optional<std::uint64_t> lines, std::optional<std::uint64_t> bytes,
                    int fd, std::FILE* out, std::FILE* err, unsigned threads) {
  std::string const period = line + '\n';
  std::string pattern;
  while (pattern.size() < kBlock + period.size()) pattern += period;
  byte_scan const scan = scan_byte_blocks(
      fd, kBlock, threads,
      [&](std::uint64_t offset, char const* data, std::size_t size) {
        return first_difference(data, pattern.data() + offset % period.size(), size);
      },
      [&](std::uint64_t offset) { return offset - offset % period.size(); });
  if (scan.read_error != 0) {
    std::fprintf(err, "fizzgen check: read error after %" PRIu64 " bytes: %s\n", scan.bytes,
                 std::strerror(scan.read_error));
    return 1;
  }
  if (scan.differs) {
    std::uint64_t const start = scan.bytes - scan.bytes % period.size();
    print_bad_line(out, start / period.size() + 1, start, line, scan.around);
    return 1;
  }
  return judge_yes(scan.bytes, scan.bytes / period.size(), scan.bytes % period.size() != 0, lines, bytes, out);
}

/// A block of yes lines of drawn lengths, and what its check found.
struct yes_block : line_block {
  std::uint64_t lines = 0, bytes = 0;  // whole lines and bytes that were right
  std::uint64_t tail = 0;              // bytes of a right cut-off last line
  bool bad = false;                    // the line after `lines` is wrong
};

/// check --yes with lengths drawn from the seed, line by line on blocks of whole lines.
int check_random_yes(yes_lines const& y, std::optional<std::uint64_t> lines, std::optional<std::uint64_t> bytes, int fd,
                     std::FILE* out, std::FILE* err, unsigned threads) {
  std::string const longest = repeated(y.text, y.longest);  // every line is a prefix of it, then '\n'
  std::uint64_t const choices = y.longest - y.shortest + 1;
  auto const length_of = [&](splitmix64& numbers) { return y.shortest + numbers.next() % choices; };
  line_block_reader reader(fd, y.longest + 256);
  auto const verify = [&](yes_block& b) {
    splitmix64 numbers(y.seed, b.first_line);
    b.lines = b.bytes = b.tail = 0;
    b.bad = false;
    char const* p = b.data.get();
    std::size_t left = b.size;
    while (left > 0) {
      auto const n = static_cast<std::size_t>(length_of(numbers));
      if (left < n) {  // a cut-off last line: right if it is the start of the expected one
        b.bad = std::memcmp(p, longest.data(), left) != 0;
        if (!b.bad) b.tail = left;
        return;
      }
      if (std::memcmp(p, longest.data(), n - 1) != 0 || p[n - 1] != '\n') {
        b.bad = true;
        return;
      }
      ++b.lines;
      b.bytes += n;
      p += n;
      left -= n;
    }
  };
  std::uint64_t whole = 0, total = 0, tail = 0;
  bool failed = false;
  auto const combine = [&](yes_block const& b) {
    whole += b.lines;
    total += b.bytes + b.tail;
    tail = b.tail;
    if (!b.bad) return true;
    splitmix64 numbers(y.seed, whole);
    std::string_view const want(longest.data(), static_cast<std::size_t>(length_of(numbers)) - 1);
    std::size_t const at = static_cast<std::size_t>(b.bytes);
    print_bad_line(out, whole + 1, total, want, std::string_view(b.data.get() + at, b.size - at));
    failed = true;
    return false;
  };
  try {
    pipeline::run_ordered<yes_block>(
        threads, 2 * std::size_t{threads}, [&](yes_block& b) { return reader.next(&b); }, verify, combine);
  } catch (std::system_error const& e) {
    std::fprintf(err, "fizzgen check: read error after %" PRIu64 " bytes: %s\n", total,
                 std::strerror(e.code().value()));
    return 1;
  }
  if (failed) return 1;
  return judge_yes(total, whole, tail != 0, lines, bytes, out);
}

}  // namespace

int check_random_main(std::uint64_t seed, std::optional<std::uint64_t> bytes, int fd, std::FILE* out, std::FILE* err,
                      unsigned threads) {
  static_assert(kBlock % 8 == 0);
  // The expected bytes of the `size` (<= 8) bytes at a word's offset.
  auto const want_word = [seed](std::uint64_t offset, std::size_t size, unsigned char* want) {
    std::uint64_t const w = splitmix64(seed, offset / 8).next();
    for (std::size_t b = 0; b < size; ++b) want[b] = static_cast<unsigned char>(w >> (8 * b));
  };
  byte_scan const scan = scan_byte_blocks(
      fd, kBlock, threads,
      [&](std::uint64_t offset, char const* data, std::size_t size) {
        splitmix64 words(seed, offset / 8);
        std::size_t i = 0;
        if constexpr (std::endian::native == std::endian::little) {  // whole words compared at once
          for (; i + 8 <= size; i += 8) {
            std::uint64_t got = 0;
            std::memcpy(&got, data + i, 8);
            if (got != words.next()) break;
          }
        }
        for (; i < size; i += 8) {
          unsigned char want[8];
          std::size_t const n = std::min<std::size_t>(8, size - i);
          want_word(offset + i, n, want);
          if (std::size_t const at = first_difference(data + i, reinterpret_cast<char const*>(want), n); at != n)
            return i + at;
        }
        return size;
      },
      [](std::uint64_t offset) { return offset; });
  if (scan.read_error != 0) {
    std::fprintf(err, "fizzgen check: read error after %" PRIu64 " bytes: %s\n", scan.bytes,
                 std::strerror(scan.read_error));
    return 1;
  }
  std::uint64_t const total = scan.bytes;
  if (scan.differs) {
    unsigned char want[8];
    want_word(total - total % 8, 8, want);
    std::fprintf(out,
                 "fizzgen check: FAIL: byte %" PRIu64 " (word %" PRIu64
                 "): expected 0x%02x, got 0x%02x "
                 "(random --seed %" PRIu64 ")\n",
                 total, total / 8, want[total % 8], static_cast<unsigned char>(scan.around.front()), seed);
    return 1;
  }
  if (bytes && total != *bytes) {
    std::fputs(length_failure(total, *bytes).c_str(), out);
    return 1;
  }
  if (!bytes && total == 0) {
    std::fprintf(out, "fizzgen check: FAIL: nothing arrived (--bytes 0 says that nothing must)\n");
    return 1;
  }
  std::fprintf(out, "fizzgen check: OK: %" PRIu64 " %s of random --seed %" PRIu64 "\n", total,
               plural(total, "byte", "bytes"), seed);
  return 0;
}

int check_yes_main(yes_lines const& y, std::optional<std::uint64_t> lines, std::optional<std::uint64_t> bytes, int fd,
                   std::FILE* out, std::FILE* err, unsigned threads) {
  if (y.longest != 0 && (y.shortest < 1 || y.shortest > y.longest))
    throw std::invalid_argument("--line-length: lengths must be at least 1, the shortest first");
  if (y.text.empty() && y.longest > 1)
    throw std::invalid_argument("--line-length: the line's text is empty: nothing to repeat up to the length");
  if (y.longest == 0) return check_fixed_yes(y.text, lines, bytes, fd, out, err, threads);
  if (!y.random || y.shortest == y.longest)
    return check_fixed_yes(repeated(y.text, y.longest), lines, bytes, fd, out, err, threads);
  return check_random_yes(y, lines, bytes, fd, out, err, threads);
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
