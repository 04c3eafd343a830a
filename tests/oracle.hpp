#pragma once
// The reference streams the tests judge the generators by, written the obvious way: one line at a
// time, numbers as decimal strings, divisibility by long division digit by digit. Slow on purpose,
// and nothing from generators/ so a bug there cannot hide here.

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace oracle {

using rules = std::vector<std::pair<std::uint64_t, std::string>>;

__extension__ using u128 = unsigned __int128;  // __extension__: a GNU type, keep -Wpedantic quiet

inline rules classic() { return {{3, "Fizz"}, {5, "Buzz"}}; }

/// n + 1, for a decimal string n ("129" -> "130", "99" -> "100").
inline std::string increment(std::string n) {
  for (std::size_t i = n.size(); i-- > 0;) {
    if (n[i] != '9') {
      ++n[i];
      return n;
    }
    n[i] = '0';
  }
  n.insert(n.begin(), '1');
  return n;
}

/// a + b for decimal strings, schoolbook addition from the right.
inline std::string add(std::string const& a, std::string const& b) {
  std::string out;
  int carry = 0;
  for (std::size_t i = 0; i < a.size() || i < b.size() || carry != 0; ++i) {
    int sum = carry;
    if (i < a.size()) sum += a[a.size() - 1 - i] - '0';
    if (i < b.size()) sum += b[b.size() - 1 - i] - '0';
    out.insert(out.begin(), static_cast<char>('0' + sum % 10));
    carry = sum / 10;
  }
  while (out.size() > 1 && out[0] == '0') out.erase(out.begin());
  return out;
}

/// n mod d (d > 0), long division one digit at a time; 128 bits so r * 10 + 9 never overflows.
inline std::uint64_t mod(std::string const& n, std::uint64_t d) {
  u128 r = 0;
  for (char c : n) r = (r * 10 + static_cast<unsigned>(c - '0')) % d;
  return static_cast<std::uint64_t>(r);
}

/// The line for number n: the words of every rule dividing n, in order, else n itself.
inline std::string fizzbuzz_line(std::string const& n, rules const& rs) {
  std::string line;
  for (auto const& [divisor, word] : rs)
    if (mod(n, divisor) == 0) line += word;
  if (line.empty()) line = n;
  return line + "\n";
}

/// `count` lines of FizzBuzz starting at the number `from` (a decimal string).
inline std::string fizzbuzz_lines(std::string from, rules const& rs, std::uint64_t count) {
  std::string out;
  for (std::uint64_t i = 0; i < count; ++i) {
    out += fizzbuzz_line(from, rs);
    from = increment(from);
  }
  return out;
}

inline std::string fizzbuzz_lines(std::string from, std::uint64_t count) {
  return fizzbuzz_lines(std::move(from), classic(), count);
}

/// GNU yes's line: the words joined by single spaces, or "y" when there are none.
inline std::string yes_line(std::vector<std::string> const& words) {
  if (words.empty()) return "y\n";
  std::string line;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i > 0) line += ' ';
    line += words[i];
  }
  return line + "\n";
}

/// `count` lines of GNU yes.
inline std::string yes_lines(std::vector<std::string> const& words, std::uint64_t count) {
  std::string const line = yes_line(words);
  std::string out;
  for (std::uint64_t i = 0; i < count; ++i) out += line;
  return out;
}

/// A line of `length` bytes, newline included: `text` character after character, from its start
/// again whenever it runs out, then '\n'.
inline std::string cycled_line(std::string const& text, std::size_t length) {
  std::string line;
  for (std::size_t i = 0; i + 1 < length; ++i) line += text[i % text.size()];
  return line + "\n";
}

/// splitmix64 seeded with `seed`, one number after another.
struct splitmix64 {
  std::uint64_t state;
  std::uint64_t next() {
    state += 0x9e3779b97f4a7c15u;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
  }
};

/// The first `count` lines of `fizzgen yes TEXT --line-length random:LO..HI --seed SEED`: line k is
/// lo + (k-th splitmix64 number mod (hi - lo + 1)) bytes long.
inline std::string yes_random_length_lines(std::string const& text, std::size_t lo, std::size_t hi, std::uint64_t seed,
                                           std::uint64_t count) {
  splitmix64 numbers{seed};
  std::string out;
  for (std::uint64_t k = 0; k < count; ++k) out += cycled_line(text, lo + numbers.next() % (hi - lo + 1));
  return out;
}

/// The first `bytes` bytes of GNU yes's output.
inline std::string yes_bytes(std::vector<std::string> const& words, std::size_t bytes) {
  std::string const line = yes_line(words);
  std::string out;
  while (out.size() < bytes) out += line;
  out.resize(bytes);
  return out;
}

/// 10^k as a decimal string.
inline std::string pow10(unsigned k) {
  std::string out(k + 1, '0');
  out[0] = '1';
  return out;
}

/// 10^k - m as a decimal string (k >= 1, 1 <= m <= 10^k - 1).
inline std::string pow10_minus(unsigned k, std::uint64_t m) {
  // 10^k - m = (10^k - 1) - (m - 1): subtract m - 1 from k nines digit by digit.
  std::string out(k, '9');
  std::uint64_t rest = m - 1;
  for (std::size_t i = out.size(); i-- > 0 && rest != 0;) {
    out[i] = static_cast<char>('9' - static_cast<int>(rest % 10));
    rest /= 10;
  }
  while (out.size() > 1 && out[0] == '0') out.erase(out.begin());
  return out;
}

inline std::string first_difference(std::string const& got, std::string const& want) {
  if (got == want) return "";
  std::size_t at = 0;
  while (at < got.size() && at < want.size() && got[at] == want[at]) ++at;
  std::size_t line = 1;
  for (std::size_t i = 0; i < at; ++i) line += want[i] == '\n' ? 1 : 0;
  std::size_t const from = at < 40 ? 0 : at - 40;
  auto excerpt = [&](std::string const& s) {
    if (from >= s.size()) return std::string("<end>");
    std::string e = s.substr(from, 80);
    for (char& c : e) c = c == '\n' ? '|' : c;
    return "\"" + e + "\"";
  };
  return "sizes " + std::to_string(got.size()) + " (got) vs " + std::to_string(want.size()) +
         " (want); first difference at byte " + std::to_string(at) + " (line " + std::to_string(line) +
         "), from byte " + std::to_string(from) + " ('|' is a newline):\n  got  " + excerpt(got) + "\n  want " +
         excerpt(want);
}

/// Calls write(out) with out at each of the 64 offsets within a cache line, in a buffer whose
/// other bytes hold a marker: "" when every call returned out + want.size() with want written
/// there, nothing before out and nothing from `slack` bytes past its end on; else what went wrong.
template <class Write>
std::string at_every_phase(std::string const& want, std::size_t slack, Write write) {
  constexpr char kUntouched = '\x01';
  for (std::size_t shift = 0; shift < 64; ++shift) {
    std::vector<char> buffer(128 + want.size() + slack + 128, kUntouched);
    auto const base = reinterpret_cast<std::uintptr_t>(buffer.data());
    char* const out = buffer.data() + ((64 - base % 64) % 64 + 64 + shift);
    char const* const end = write(out);
    std::string const at = " (output at 64k+" + std::to_string(shift) + ")";
    if (end != out + want.size()) return "returned " + std::to_string(end - out) + " bytes" + at;
    if (std::string const d = first_difference(std::string(out, want.size()), want); !d.empty()) return d + at;
    for (char const* p = buffer.data(); p < out; ++p)
      if (*p != kUntouched) return "wrote " + std::to_string(out - p) + " bytes before the start" + at;
    for (char const* p = end + slack; p < buffer.data() + buffer.size(); ++p)
      if (*p != kUntouched) return "wrote " + std::to_string(p - end) + " bytes past the end" + at;
  }
  return "";
}

}  // namespace oracle
