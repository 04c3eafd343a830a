#pragma once
// English-like text for the Morse tests and bench/morse_bench: words, punctuation, a newline
// every ten words or so, seeded so that every run sees the same bytes.

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <random>
#include <string>

namespace morse_text {

/// n bytes of English-like text from seed.
inline std::string english_like(std::uint64_t seed, std::size_t n) {
  std::mt19937_64 rng(seed);
  char const* words[] = {"the",    "quick",  "brown",    "fox", "jumps", "over", "a",  "lazy", "dog",
                         "Hello,", "world.", "FizzBuzz", "42",  "Morse", "code", "is", "fast?"};
  std::string s;
  while (s.size() < n) {
    s += words[rng() % std::size(words)];
    s += rng() % 10 == 0 ? '\n' : ' ';
  }
  s.resize(n);
  return s;
}

}  // namespace morse_text
