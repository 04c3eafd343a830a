// The Morse encoder kernels: every arch this CPU runs that has one against the scalar encoder
// (byte for byte, eagerly) and against the oracle (a stream cut into chunks at every offset), on
// seeded random bytes, English-like text and the worst cases: bytes without a code, every byte a
// '\n', every byte a 7-symbol code, '%' (the byte no slot holds) here and there; every pair of
// ASCII bytes at both parities, and pass bytes taking back a space across runs of bytes without
// a code over block edges (the pair kernels of avx2 and sse4.2). The decoder
// kernels likewise against the scalar decoder and the oracle: random bytes, Morse-like bytes, the
// encoder's output, and the worst cases (every byte a separator, a '\n', a '/', groups of 7 and
// of 8 or more symbols, bytes from 0x80 up), cut after a separator at every offset (once, and
// twice), and every group of up to 8 symbols at every offset of a window.

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "generators/arch.hpp"
#include "generators/morse_codec.hpp"
#include "generators/morse_decode_lanes.hpp"
#include "generators/morse_encode_kernel.hpp"
#include "morse_oracle.hpp"
#include "morse_text.hpp"
#include "oracle.hpp"

namespace {

namespace morse = fizzgen::morse;
using fizzgen::kernel_arch;

std::vector<kernel_arch const*> encoder_archs() {
  std::vector<kernel_arch const*> archs;
  for (kernel_arch const& a : fizzgen::kernel_archs())
    if (a.available && a.morse_encode != nullptr) archs.push_back(&a);
  return archs;
}

/// Eager encoding with arch's kernel (nullptr: the scalar encoder) into exactly encode_bound bytes.
std::string eager(std::string_view in, kernel_arch const* arch) {
  std::vector<char> out(morse::encode_bound(in.size()));
  std::size_t const n =
      arch == nullptr ? morse::encode_eager(in, out.data()) : morse::encode_eager(in, out.data(), *arch);
  EXPECT_LE(n, out.size());
  return {out.data(), n};
}

/// The stream of `in` encoded by arch in pieces ending at the offsets in cuts (ascending).
std::string stream_in_pieces(std::string_view in, std::vector<std::size_t> const& cuts, kernel_arch const& arch) {
  morse::encode_joiner joiner;
  std::string out;
  std::size_t from = 0;
  auto add = [&](std::size_t to) {
    std::string const piece = eager(in.substr(from, to - from), &arch);
    auto const p = joiner.next(piece);
    if (p.space) out += ' ';
    out.append(p.body.data(), p.body.size());
    from = to;
  };
  for (std::size_t c : cuts) add(c);
  add(in.size());
  return out;
}

std::string random_bytes(std::mt19937_64& rng, std::size_t n, std::string_view alphabet) {
  std::string s(n, '\0');
  for (char& c : s) c = alphabet.empty() ? static_cast<char>(rng() & 0xff) : alphabet[rng() % alphabet.size()];
  return s;
}

std::string english_like(std::mt19937_64& rng, std::size_t n) { return morse_text::english_like(rng(), n); }

/// Inputs of every kind, several 64-byte blocks long and with odd tails.
std::vector<std::string> samples() {
  std::mt19937_64 rng(14);
  std::vector<std::string> s;
  s.push_back(std::string(300, '\x01'));  // no code at all
  s.push_back(std::string(300, '\n'));
  s.push_back(std::string(300, '$'));  // 7 symbols and a space: a full slot
  s.push_back(std::string(300, '%'));  // the scalar path, block after block
  s.push_back(std::string(300, ' '));
  s.push_back(std::string(300, '&'));
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  s.push_back(all + all);
  for (std::size_t n : {0, 1, 7, 8, 63, 64, 65, 127, 128, 129, 200, 1000}) s.push_back(english_like(rng, n));
  for (int i = 0; i < 50; ++i) {
    // The fourth writes something for every byte (the kernels' fast path), pass bytes included.
    std::string_view const alphabet = i % 5 == 0   ? ""
                                      : i % 5 == 1 ? "ab \n\t\r#&$`"
                                      : i % 5 == 2 ? "e \n#\x80"
                                      : i % 5 == 3 ? "e$ \n\n\t\r"
                                                   : "aZ09 \n\t\r%&#.-/";
    s.push_back(random_bytes(rng, rng() % 400, alphabet));
  }
  return s;
}

TEST(MorseEncodeKernel, EveryArchWritesTheScalarBytes) {
  auto const archs = encoder_archs();
  if (archs.empty()) GTEST_SKIP() << "no Morse encoder kernel runs on this CPU";
  for (kernel_arch const* arch : archs) {
    for (std::string const& s : samples()) ASSERT_EQ(eager(s, arch), eager(s, nullptr)) << arch->name << " on " << s;
    // Every length up to a few blocks, each byte at each position of a block.
    std::mt19937_64 rng(5);
    std::string const text = random_bytes(rng, 200, "a% \n\t#$&\xff");
    for (std::size_t n = 0; n <= text.size(); ++n)
      ASSERT_EQ(eager(text.substr(0, n), arch), eager(text.substr(0, n), nullptr)) << arch->name << " length " << n;
  }
}

TEST(MorseEncodeKernel, EveryPairOfBytesAtBothParities) {
  // The pair kernels look bytes up two at a time: every ASCII pair, at an even and an odd
  // offset, with a pass byte right after it and after a run of bytes without a code.
  auto const archs = encoder_archs();
  if (archs.empty()) GTEST_SKIP() << "no Morse encoder kernel runs on this CPU";
  for (kernel_arch const* arch : archs) {
    for (int a = 0; a < 128; ++a) {
      std::string s;
      for (int b = 0; b < 128; ++b) {
        std::string const pair{static_cast<char>(a), static_cast<char>(b)};
        s += pair + "\n" + pair + "e" + pair + "##\t" + pair;
      }
      ASSERT_EQ(eager(s, arch), eager(s, nullptr)) << arch->name << " first byte " << a;
      ASSERT_EQ(eager(s.substr(1), arch), eager(s.substr(1), nullptr)) << arch->name << " first byte " << a;
    }
  }
}

TEST(MorseEncodeKernel, PassBytesTakeBackSpacesAcrossBytesWithoutACode) {
  // A code, then k bytes without a code (crossing block edges), then a pass byte, at every offset.
  auto const archs = encoder_archs();
  if (archs.empty()) GTEST_SKIP() << "no Morse encoder kernel runs on this CPU";
  for (kernel_arch const* arch : archs) {
    for (std::size_t at = 0; at < 70; ++at) {
      for (std::size_t k : {0, 1, 2, 5, 15, 31, 32, 33, 64, 100}) {
        for (char const pass : {'\n', '\r'}) {
          std::string const s = std::string(at, 'e') + "$" + std::string(k, '\x80') + pass + "e\x01\n" +
                                std::string(70, '\n') + "t" + std::string(k, '#') + std::string(40, '\t');
          ASSERT_EQ(eager(s, arch), eager(s, nullptr)) << arch->name << " at " << at << " k " << k;
          ASSERT_EQ(morse::encode(s, *arch), morse_oracle::encode(s)) << arch->name << " at " << at << " k " << k;
        }
      }
    }
  }
}

TEST(MorseEncodeKernel, GroupsWithAndWithoutACarriageReturnWriteTheScalarBytes) {
  // The avx512vbmi2 kernel turns slot classes into bytes by an affine map, which has no room for
  // '\r': a group of 8 blocks (512 bytes) holding one takes vpshufb instead. A lone '\r' at every
  // place of three groups' edges and middles, CRLF text, and '\r' after every kind of byte.
  kernel_arch const* vbmi2 = nullptr;
  for (kernel_arch const* a : encoder_archs())
    if (a->name == std::string_view("avx512vbmi2")) vbmi2 = a;
  if (vbmi2 == nullptr) GTEST_SKIP() << "no AVX-512 VBMI2 on this CPU";
  std::mt19937_64 rng(9);
  std::string const text = english_like(rng, 3 * 512 + 100);
  std::vector<std::string> inputs;
  for (std::size_t at = 0; at < text.size(); at += at % 512 < 4 || at % 512 > 508 ? 1 : 61) {
    inputs.push_back(text);
    inputs.back()[at] = '\r';
  }
  std::string crlf;
  for (char const c : english_like(rng, 1 << 14)) crlf += c == '\n' ? std::string("\r\n") : std::string(1, c);
  inputs.push_back(crlf);
  inputs.push_back(random_bytes(rng, 5000, "a% \r\n\t#$&\xff"));
  inputs.emplace_back(3000, '\r');
  for (std::string const& s : inputs) {
    std::vector<char> out(morse::encode_bound(s.size()));
    std::size_t const n = morse::morse_encode_avx512vbmi2(s.data(), s.size(), out.data());
    ASSERT_EQ(std::string(out.data(), n), eager(s, nullptr)) << "on " << s.substr(0, 80);
  }
}

TEST(MorseEncodeKernel, LargeTextMatchesTheOracle) {
  std::mt19937_64 rng(1);
  std::string const text = english_like(rng, 1 << 20);
  std::string const want = morse_oracle::encode(text);
  for (kernel_arch const* arch : encoder_archs()) {
    std::string const got = morse::encode(text, *arch);
    ASSERT_EQ(oracle::first_difference(got, want), "") << arch->name;
  }
}

TEST(MorseEncodeKernel, CutAtEveryOffsetOfAFewChunks) {
  std::mt19937_64 rng(3);
  std::vector<std::string> const texts{english_like(rng, 150), random_bytes(rng, 150, "a \n\n\t\r#$%&"),
                                       std::string(70, '\n') + std::string(70, ' '), std::string(140, '#') + "\n"};
  for (kernel_arch const* arch : encoder_archs()) {
    for (std::string const& s : texts) {
      std::string const want = morse_oracle::encode(s);
      for (std::size_t a = 0; a <= s.size(); ++a) {
        ASSERT_EQ(stream_in_pieces(s, {a}, *arch), want) << arch->name << " cut at " << a;
        // A second cut after the first, every few bytes: pieces of a byte or two, empty ones too.
        for (std::size_t b = a; b <= s.size(); b += 1 + a % 13)
          ASSERT_EQ(stream_in_pieces(s, {a, b}, *arch), want) << arch->name << " cut at " << a << " and " << b;
      }
    }
  }
}

std::vector<kernel_arch const*> decoder_archs() {
  std::vector<kernel_arch const*> archs;
  for (kernel_arch const& a : fizzgen::kernel_archs())
    if (a.available && a.morse_decode != nullptr) archs.push_back(&a);
  return archs;
}

/// What arch's decoder (nullptr: the scalar one) writes for in, into exactly decode_bound bytes.
std::string decoded(std::string_view in, kernel_arch const* arch) {
  std::vector<char> out(morse::decode_bound(in.size()));
  std::span<char const> const span(in.data(), in.size());
  std::size_t const n = arch == nullptr ? morse::decode(span, out.data()) : morse::decode(span, out.data(), *arch);
  EXPECT_LE(n, out.size());
  return {out.data(), n};
}

/// Morse-like inputs of every kind, several 56-byte windows long and with odd tails.
std::vector<std::string> morse_samples() {
  std::mt19937_64 rng(56);
  std::vector<std::string> s;
  for (char c : {' ', '\n', '\t', '\r', '/', '.', '-', '#', '\x80', '\0'}) s.push_back(std::string(300, c));
  std::string sevens, eights;  // '$' (7 symbols) and groups of 8: the longest code, the shortest unknown
  while (sevens.size() < 300) sevens += "...-..- ";
  while (eights.size() < 300) eights += "........\n";
  s.push_back(sevens);
  s.push_back(eights);
  std::string all;
  for (int b = 0; b < 256; ++b) all += static_cast<char>(b);
  s.push_back(all + all);
  for (std::size_t n : {0, 1, 7, 8, 55, 56, 57, 63, 64, 65, 111, 112, 113, 200, 1000})
    s.push_back(morse::encode(english_like(rng, n)));
  for (int i = 0; i < 60; ++i) {
    std::string_view const alphabet = i % 4 == 0 ? "" : i % 4 == 1 ? ".- " : i % 4 == 2 ? ".-/ \n\t\r" : ".- /\nx\xff";
    s.push_back(random_bytes(rng, rng() % 500, alphabet));
  }
  return s;
}

}  // namespace

TEST(MorseDecodeKernel, EveryArchWritesTheScalarBytes) {
  auto const archs = decoder_archs();
  if (archs.empty()) GTEST_SKIP() << "no Morse decoder kernel runs on this CPU";
  for (kernel_arch const* arch : archs) {
    for (std::string const& s : morse_samples()) {
      ASSERT_EQ(decoded(s, arch), decoded(s, nullptr)) << arch->name << " on " << s;
      ASSERT_EQ(decoded(s, arch), morse_oracle::decode(s)) << arch->name << " on " << s;
    }
    // Every length up to a few windows: each kind of byte at each position of a window.
    std::mt19937_64 rng(7);
    std::string const text = random_bytes(rng, 300, ".-.-.- /\n\t#");
    for (std::size_t n = 0; n <= text.size(); ++n)
      ASSERT_EQ(decoded(text.substr(0, n), arch), decoded(text.substr(0, n), nullptr)) << arch->name << " length " << n;
  }
}

TEST(MorseDecodeKernel, LargeTextMatchesTheOracle) {
  std::mt19937_64 rng(2);
  std::string const text = english_like(rng, 1 << 20);
  std::string const morse_text = morse_oracle::encode(text);
  std::string const want = morse_oracle::decode(morse_text);
  ASSERT_EQ(want, morse_oracle::upper_without_uncodable(text));
  for (kernel_arch const* arch : decoder_archs())
    ASSERT_EQ(oracle::first_difference(morse::decode(morse_text, *arch), want), "") << arch->name;
}

TEST(MorseDecodeKernel, CutAfterASeparatorAtEveryOffset) {
  std::mt19937_64 rng(4);
  std::string sevens;  // the Morse of '$'s: every group 7 symbols
  while (sevens.size() < 200) sevens += "...-..- ";
  std::vector<std::string> const texts{morse::encode(english_like(rng, 40)),
                                       random_bytes(rng, 180, ".- /\n"),
                                       std::string(60, ' ') + std::string(60, '.') + "\n",
                                       random_bytes(rng, 180, ".-- \t\r/x"),
                                       sevens,
                                       std::string(200, '\n'),
                                       random_bytes(rng, 200, ".-.-.- /\n\t\r#\x80\xff")};
  for (kernel_arch const* arch : decoder_archs()) {
    for (std::string const& s : texts) {
      std::string const want = morse_oracle::decode(s);
      std::string_view const v(s);
      auto after_separator = [&s](std::size_t at) {
        return at == 0 || at == s.size() || morse::is_separator(s[at - 1]);
      };
      for (std::size_t a = 0; a <= s.size(); ++a) {
        if (!after_separator(a)) continue;  // chunks end after a separator
        ASSERT_EQ(decoded(v.substr(0, a), arch) + decoded(v.substr(a), arch), want) << arch->name << " cut at " << a;
        // A second cut after the first, every few bytes: pieces of a byte or two, empty ones too.
        for (std::size_t b = a; b <= s.size(); b += 1 + a % 11) {
          if (!after_separator(b)) continue;
          ASSERT_EQ(decoded(v.substr(0, a), arch) + decoded(v.substr(a, b - a), arch) + decoded(v.substr(b), arch),
                    want)
              << arch->name << " cut at " << a << " and " << b;
        }
      }
    }
  }
}

TEST(MorseDecodeKernel, EveryGroupOfUpToEightSymbolsAtEveryOffset) {
  // Every string of 1..8 dots and dashes, each as a group between separators of every kind and as
  // the group before a '/', shifted through every position of a 64-byte window by a leading pad.
  std::string groups;
  std::string_view const seps = " \n\t\r";
  std::size_t count = 0;
  for (unsigned len = 1; len <= 8; ++len) {
    for (unsigned bits = 0; bits < (1u << len); ++bits) {
      for (unsigned k = 0; k < len; ++k) groups += ((bits >> k) & 1u) != 0 ? '-' : '.';
      groups += seps[count++ % seps.size()];
      if (count % 5 == 0) groups += "/ ";
    }
  }
  for (kernel_arch const* arch : decoder_archs()) {
    for (std::size_t pad = 0; pad < 64; ++pad) {
      std::string const s = std::string(pad, ' ') + groups;
      ASSERT_EQ(decoded(s, arch), morse_oracle::decode(s)) << arch->name << " pad " << pad;
    }
  }
}

TEST(MorseDecodeKernel, LaneTablesHoldEveryCodeOfSevenSymbols) {
  // The 16- and 32-byte kernels compare the packed indices from 128 up with a short list.
  EXPECT_EQ(morse::lane_tables().long_codes_missing, 0);
  unsigned long_codes = 0;
  for (auto const& [ch, code] : morse_oracle::table()) long_codes += code.size() == 7 ? 1 : 0;
  EXPECT_LE(long_codes, morse::kLongCodes);
}
