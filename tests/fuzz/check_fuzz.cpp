// libFuzzer target: `fizzgen check`'s checker (verify/check.hpp) on any stream. Its verdict, fed the
// whole stream at once and fed in fuzzed pieces, must equal a reference verdict computed the
// obvious way: compare the stream byte by byte with the oracle's lines; the first difference names
// the bad line. So a correct stream (generated from fuzzed start, count and rules, perhaps cut
// inside its last line) always passes, and any corruption fails at the right line.
// Input: mode, rule count, rules (size byte [8-byte divisor] word '\n'), from '\n', count (2),
// cut (2), corrupt at (2), corrupt xor (1), split seed (4), then the stream itself when mode bit 0
// is clear. Mode bits: 0 stream from the oracle, 1 cut it inside the last line, 2 corrupt one
// byte, 3 pass the from line as it is (checker options validation).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>

#include "fuzz_input.hpp"
#include "oracle.hpp"
#include "verify/check.hpp"

namespace {

namespace check = fizzgen::check;

void require(bool ok) {
  if (!ok) std::abort();
}

bool valid_from(std::string_view s) {
  return !s.empty() && s.front() != '0' && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

/// What the checker must report for `stream`, found by comparing it with enough oracle lines.
check::result reference(std::string const& stream, std::string const& from, oracle::rules const& rules) {
  auto const newlines = static_cast<std::uint64_t>(std::count(stream.begin(), stream.end(), '\n'));
  std::string const want = oracle::fizzbuzz_lines(from, rules, newlines + 1);
  std::size_t m = 0;
  while (m < stream.size() && stream[m] == want[m]) ++m;
  check::result r;
  if (m == stream.size()) {
    r.lines = newlines;
    r.bytes = stream.size();
    auto const last = stream.rfind('\n');
    r.tail_bytes = stream.size() - (last == std::string::npos ? 0 : last + 1);
    return r;
  }
  auto const nl = m == 0 ? std::string::npos : stream.rfind('\n', m - 1);
  std::size_t const start = nl == std::string::npos ? 0 : nl + 1;
  r.ok = false;
  r.lines = static_cast<std::uint64_t>(std::count(stream.begin(), stream.begin() + static_cast<long>(start), '\n'));
  r.bytes = start;
  r.bad_line = r.lines + 1;
  r.bad_offset = start;
  r.expected = want.substr(start, want.find('\n', start) - start);
  std::size_t const end = std::min(stream.find('\n', start), stream.size());
  r.actual = stream.substr(start, std::min<std::size_t>(end - start, 200));
  if (end - start > 200) {
    r.actual_truncated = true;
    r.reason = "wrong line";
  } else if (end == stream.size()) {
    r.reason = "wrong cut-off final line";
  } else {
    r.reason = r.actual.empty() ? "empty line" : "wrong line";
  }
  return r;
}

check::result run(check::options const& o, std::string_view stream, std::uint64_t split_seed) {
  check::checker c(o);
  if (split_seed == 0) {
    c.feed(stream);
    return c.finish();
  }
  fuzz::splitter pieces(split_seed);
  while (!stream.empty()) {
    std::size_t const n = std::min(pieces.next(), stream.size());
    if (!c.feed(stream.substr(0, n))) break;
    stream.remove_prefix(n);
  }
  return c.finish();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(std::uint8_t const* data, std::size_t size) {
  fuzz::input in(data, size);
  std::uint8_t const mode = in.byte();
  check::options o;
  oracle::rules rules;
  for (unsigned n = in.byte() % 4; n > 0; --n) {
    std::uint8_t const k = in.byte();
    std::uint64_t divisor = k < 0xf0 ? k + 1u : in.le(8);  // mostly small: the table path
    if (divisor == 0) divisor = 1;
    std::string const word = fuzz::word(in.line(), 64);
    o.rules.push_back({divisor, word});
    rules.emplace_back(divisor, word);
  }
  if (rules.empty()) rules = oracle::classic();
  std::string_view const from_text = in.line();
  o.from = (mode & 8) != 0 ? std::string(from_text) : fuzz::positive_digits(from_text, 60);
  auto const count = in.le(2) % 3000;
  auto const cut = in.le(2);
  auto const corrupt_at = in.le(2);
  auto const corrupt_xor = static_cast<char>(in.byte() | 1);
  std::uint64_t const split_seed = in.le(4);

  if (!valid_from(o.from)) {  // only with mode bit 3
    try {
      check::checker c(o);
    } catch (std::invalid_argument const&) {
      return 0;
    }
    std::abort();
  }

  std::string stream;
  if ((mode & 1) != 0) {
    stream = oracle::fizzbuzz_lines(o.from, rules, count);
    if ((mode & 2) != 0 && !stream.empty()) {
      auto const last = stream.rfind('\n', stream.size() - 2);
      std::size_t const last_size = stream.size() - (last == std::string::npos ? 0 : last + 1);
      stream.resize(stream.size() - cut % last_size);
    }
    if ((mode & 4) != 0 && !stream.empty()) stream[corrupt_at % stream.size()] ^= corrupt_xor;
  } else {
    stream = in.rest();
  }

  check::result const want = reference(stream, o.from, rules);
  require(run(o, stream, 0) == want);
  require(run(o, stream, split_seed | 1) == want);
  if ((mode & 1) != 0 && (mode & 4) == 0) require(want.ok);  // the reference itself, on its own stream
  return 0;
}
