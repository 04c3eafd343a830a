// Morse: the table, the fast encoder and decoder against the byte-at-a-time oracle (every byte,
// mixed text, every split point, seeded random and fuzz input), the round trip, and the FizzBuzz
// stream in Morse (every arch, roll-overs, 2^64, custom rules, chunk edges, 1-8 engine threads)
// against the plain oracle stream encoded by the oracle encoder.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/run.hpp"
#include "generators/arch.hpp"
#include "generators/morse_codec.hpp"
#include "generators/morse_fizzbuzz.hpp"
#include "generators/morse_fizzbuzz_kernel.hpp"
#include "generators/morse_table.hpp"
#include "morse_oracle.hpp"
#include "oracle.hpp"

namespace {

using fizzgen::decimal;
using fizzgen::morse_fizzbuzz;
namespace morse = fizzgen::morse;

/// The docs/morse.md stream of `pieces` encoded one after the other, as the pipeline stitches them.
std::string encode_in_pieces(std::vector<std::string> const& pieces) {
  morse::encode_joiner joiner;
  std::string out;
  for (auto const& piece : pieces) {
    std::string eager(morse::encode_bound(piece.size()), '\0');
    eager.resize(morse::encode_eager(piece, eager.data()));
    auto const p = joiner.next(eager);
    if (p.space) out += ' ';
    out.append(p.body.data(), p.body.size());
  }
  return out;
}

/// Text with everything that matters to the encoder: cases, digits, punctuation, multi-group
/// codes, runs of spaces, CR/LF/tab next to spaces, bytes without a code, bytes >= 0x80.
std::string mixed_sample() {
  return std::string("Hello,  World!\r\nFizz\tBuzz  \n\n 42 % & $@ #~^ \x01\x7f\xc3\xa9t\xff\t \r") + '\0' + "end. ";
}

std::string random_bytes(std::mt19937_64& rng, std::size_t n, std::string_view alphabet) {
  std::string s(n, '\0');
  for (char& c : s) c = alphabet.empty() ? static_cast<char>(rng() & 0xff) : alphabet[rng() % alphabet.size()];
  return s;
}

// ---- the table --------------------------------------------------------------------------------

TEST(MorseTable, MorseMdExamples) {
  EXPECT_EQ(morse::encode("1"), ".----");
  EXPECT_EQ(morse::encode("Fizz"), "..-. .. --.. --..");
  EXPECT_EQ(morse::encode("FizzBuzz"), "..-. .. --.. --.. -... ..- --.. --..");
  EXPECT_EQ(morse::encode("a b"), ".- / -...");
  EXPECT_EQ(morse::encode("a  b"), ".- / / -...");
  EXPECT_EQ(morse::encode("1\n"), ".----\n");
  EXPECT_EQ(morse::encode("&%"), ". ... ----- -..-. -----");
  EXPECT_EQ(morse::encode("#^~\x80"), "");
}

TEST(MorseTable, EveryByteAloneAndInContext) {
  for (int b = 0; b < 256; ++b) {
    std::string const c(1, static_cast<char>(b));
    for (std::string const& text : {c, "a" + c + "b", c + "\n", " " + c + " ", c + c + c + "\t"})
      ASSERT_EQ(morse::encode(text), morse_oracle::encode(text)) << "byte " << b;
  }
}

TEST(MorseTable, DecodeTableIsTheInverseForSingleGroups) {
  for (auto const& [c, code] : morse_oracle::table()) {
    if (code.find(' ') != std::string::npos) continue;
    char const want = morse_oracle::groups().at(code);  // the first entry with that code
    EXPECT_EQ(morse::decode_group(code), want) << code;
  }
  EXPECT_EQ(morse::decode_group("-..-"), 'X');
  EXPECT_EQ(morse::decode_group("-..-."), '/');
  EXPECT_EQ(morse::decode_group("........"), morse::kUnknownMarker);
  EXPECT_EQ(morse::decode_group(".-x"), morse::kUnknownMarker);
  EXPECT_EQ(morse::decode_group(""), morse::kUnknownMarker);
}

// ---- encoding ---------------------------------------------------------------------------------

TEST(MorseEncode, MixedText) {
  std::string const s = mixed_sample();
  EXPECT_EQ(morse::encode(s), morse_oracle::encode(s));
  EXPECT_EQ(morse::encode(""), "");
  EXPECT_EQ(morse::encode("\n\n"), "\n\n");
  EXPECT_EQ(morse::encode("a \n"), ".- /\n");
  EXPECT_EQ(morse::encode("a#\n"), ".-\n");  // a dropped byte does not keep the space
}

TEST(MorseEncode, SeededRandomInput) {
  std::mt19937_64 rng(20240601);
  for (int i = 0; i < 3000; ++i) {
    std::string_view const alphabet = i % 3 == 0 ? "" : i % 3 == 1 ? "aZ09 \n\t\r%&#.-/" : "e \n";
    std::string const s = random_bytes(rng, rng() % 300, alphabet);
    ASSERT_EQ(morse::encode(s), morse_oracle::encode(s)) << "case " << i;
  }
  std::string const big = random_bytes(rng, 200000, "The quick brown fox, 42!\n ");
  EXPECT_EQ(oracle::first_difference(morse::encode(big), morse_oracle::encode(big)), "");
}

TEST(MorseEncode, TwoPiecesAtEveryOffsetEqualOnePiece) {
  for (std::string const& s : {mixed_sample(), std::string("a\n \n b  \t\r\n%"), std::string("  \n")}) {
    std::string const want = morse_oracle::encode(s);
    for (std::size_t k = 0; k <= s.size(); ++k)
      ASSERT_EQ(encode_in_pieces({s.substr(0, k), s.substr(k)}), want) << "split at " << k;
  }
}

TEST(MorseEncode, ManyPiecesEqualOnePiece) {
  std::mt19937_64 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string const s = random_bytes(rng, rng() % 120, "ab \n\t\r#%");
    std::vector<std::string> pieces;
    for (std::size_t at = 0; at < s.size();) {
      std::size_t const n = std::min<std::size_t>(rng() % 6, s.size() - at);  // empty pieces too
      pieces.push_back(s.substr(at, n));
      at += n;
    }
    ASSERT_EQ(encode_in_pieces(pieces), morse_oracle::encode(s)) << "case " << i;
  }
}

// ---- decoding ---------------------------------------------------------------------------------

TEST(MorseDecode, Basics) {
  EXPECT_EQ(morse::decode("... --- ..."), "SOS");
  EXPECT_EQ(morse::decode(".- / -..."), "A B");
  EXPECT_EQ(morse::decode(".----\n..-. .. --.. --..\n"), "1\nFIZZ\n");
  EXPECT_EQ(morse::decode("  .-   \t\r\n"), "A\t\r\n");
  EXPECT_EQ(morse::decode("/"), " ");
  EXPECT_EQ(morse::decode("// ./ ........ ...-..- .-x"), "###$#");  // spaces only separate
  EXPECT_EQ(morse::decode(""), "");
  EXPECT_EQ(morse::decode(std::string("\0", 1)), "#");
}

TEST(MorseDecode, SeededRandomAndFuzzInputMatchTheOracle) {
  std::mt19937_64 rng(99);
  for (int i = 0; i < 20000; ++i) {
    std::string_view const alphabet = i % 4 == 0 ? "" : i % 4 == 1 ? ".- /\n" : i % 4 == 2 ? ".-" : ".- /\n\t\rx";
    std::string const s = random_bytes(rng, rng() % 400, alphabet);
    ASSERT_EQ(morse::decode(s), morse_oracle::decode(s)) << "case " << i;
  }
  std::string const big = random_bytes(rng, 300000, ".-- ..- / \n");
  EXPECT_EQ(oracle::first_difference(morse::decode(big), morse_oracle::decode(big)), "");
}

TEST(MorseDecode, ChunksCutAfterASeparatorDecodeIndependently) {
  std::mt19937_64 rng(5);
  std::string const s = random_bytes(rng, 5000, ".-. /\n-........");
  std::string const want = morse_oracle::decode(s);
  for (std::size_t step : {1, 2, 7, 56, 64, 100}) {
    std::string got;
    std::size_t from = 0;
    for (std::size_t i = step; i <= s.size(); i += step) {
      if (!morse::is_separator(s[i - 1])) continue;
      got += morse::decode(std::string_view(s).substr(from, i - from));
      from = i;
    }
    got += morse::decode(std::string_view(s).substr(from));
    EXPECT_EQ(oracle::first_difference(got, want), "") << "step " << step;
  }
}

TEST(MorseRoundTrip, DecodeOfEncodeIsTheUpperCasedInputMinusUncodable) {
  std::mt19937_64 rng(11);
  std::string const alphabet = "abcxyzABCXYZ0123456789.,?'!/():;=+-_\"$@` \n\t\r#^~\x01\xe9";
  for (int i = 0; i < 2000; ++i) {
    std::string const s = random_bytes(rng, rng() % 200, alphabet);
    ASSERT_EQ(morse::decode(morse::encode(s)), morse_oracle::upper_without_uncodable(s)) << "case " << i;
  }
  // Characters whose code is shared or several groups read back as the table says.
  EXPECT_EQ(morse::decode(morse::encode("&%*<>[]{}\\|")), "ES0/0X()()()//");
}

// ---- the FizzBuzz stream in Morse -------------------------------------------------------------

/// Every chunk of g, filled one after the other.
std::string fill_all(fizzgen::generator const& g) {
  std::vector<std::byte> buf(g.chunk_capacity());
  std::string out;
  for (std::uint64_t i = 0;; ++i) {
    auto const c = g.plan(i);
    if (!c) break;
    std::size_t const n = g.fill(*c, buf);
    EXPECT_LE(n, buf.size());
    out.append(reinterpret_cast<char const*>(buf.data()), n);
  }
  return out;
}

std::string morse_oracle_lines(std::string const& from, oracle::rules const& rules, std::uint64_t count) {
  return morse_oracle::encode(oracle::fizzbuzz_lines(from, rules, count));
}

fizzgen::rule_set to_rule_set(oracle::rules const& rs) {
  fizzgen::rule_set out;
  for (auto const& [d, w] : rs) out.push_back({d, w});
  return out;
}

TEST(MorseFizzBuzz, FirstLines) {
  morse_fizzbuzz const g(*decimal::parse("1"), fizzgen::classic_rules(), 15);
  EXPECT_EQ(fill_all(g),
            ".----\n..---\n..-. .. --.. --..\n....-\n-... ..- --.. --..\n..-. .. --.. --..\n--...\n---..\n"
            "..-. .. --.. --..\n-... ..- --.. --..\n.---- .----\n..-. .. --.. --..\n.---- ...--\n.---- ....-\n"
            "..-. .. --.. --.. -... ..- --.. --..\n");
}

TEST(MorseFizzBuzz, EveryArchAcrossRollOversAndTwoToThe64) {
  std::vector<std::pair<std::string, std::uint64_t>> windows{
      {"1", 5000},
      {"7", 100},
      {"18446744073709551600", 400},  // across 2^64
      {"99999999999999999990", 100},
      {"1234567890123456789012345678901234567890", 200},
  };
  for (unsigned k = 2; k <= 67; k += (k < 26 ? 1 : 10)) windows.push_back({oracle::pow10_minus(k, 47), 100});
  windows.push_back({oracle::pow10_minus(65, 61), 120});  // the widest prefix the kernel takes
  windows.push_back({oracle::pow10_minus(66, 61), 120});  // one digit more: the scalar path
  for (auto const& arch : fizzgen::kernel_archs()) {
    if (!arch.available) continue;
    for (auto const& [from, count] : windows) {
      std::string const want = morse_oracle_lines(from, oracle::classic(), count);
      for (std::size_t chunk_bytes : {std::size_t{64}, std::size_t{1000}, morse_fizzbuzz::kDefaultChunkBytes}) {
        morse_fizzbuzz const g(*decimal::parse(from), fizzgen::classic_rules(), count, chunk_bytes, arch);
        ASSERT_EQ(oracle::first_difference(fill_all(g), want), "")
            << arch.name << " from " << from << " chunk " << chunk_bytes;
      }
    }
  }
}

// The classic Morse kernels called directly, wherever the output starts (all 64 phases): the
// oracle's bytes, nothing written before the start, nor more than kMorseKernelSlack bytes past the
// returned end. Prefixes whose blocks cross a hundred (t of 97-99) at the first block, and the
// widths about the AVX-512 VBMI kernel's (prefixes of 2 to 16 digits, packed from 13).
TEST(MorseFizzBuzz, KernelAtEveryOutputAlignment) {
  int checked = 0;
  for (std::size_t const len : {1, 2, 3, 9, 10, 12, 13, 16, 17}) {
    for (unsigned const t : {0u, 93u, 96u, 97u, 99u}) {
      std::string prefix(len >= 2 ? len - 2 : 0, '0');  // high digits 10...0, then t
      if (!prefix.empty()) prefix[0] = '1';
      if (len >= 2) prefix.push_back(static_cast<char>('0' + t / 10));
      prefix.push_back(static_cast<char>('0' + t % 10));
      while (oracle::mod(prefix, 3) != 0) prefix = oracle::add(prefix, "1");
      if (prefix.size() != len || prefix[0] == '0') continue;
      // Only blocks whose next prefix keeps len digits, as the callers use them.
      std::uint64_t const room = (std::stoull(std::string(len, '9')) - std::stoull(prefix)) / 3;
      for (std::uint64_t const count : {1u, 2u, 40u}) {
        std::uint64_t const blocks = std::min<std::uint64_t>(count, room);
        if (blocks == 0) continue;
        std::string const want = morse_oracle_lines(prefix + "1", oracle::classic(), 30 * blocks);
        for (auto const& arch : fizzgen::kernel_archs()) {
          if (!arch.available || arch.morse_blocks == nullptr) continue;
          std::string p;
          std::string const found = oracle::at_every_phase(want, fizzgen::kMorseKernelSlack, [&](char* out) {
            p = prefix;
            return arch.morse_blocks(out, p.data(), len, blocks);
          });
          std::string const at = std::string(arch.name) + " prefix " + prefix + " blocks " + std::to_string(blocks);
          ASSERT_EQ(found, "") << at;
          ASSERT_EQ(p, oracle::add(prefix, std::to_string(3 * blocks))) << at;
          ++checked;
        }
      }
    }
  }
  EXPECT_GE(checked, 8 * 4);  // every width above made calls (a prefix that does not fit is skipped)
}

TEST(MorseFizzBuzz, KernelsAreUsedForClassicRulesAndShortPeriods) {
  for (auto const& arch : fizzgen::kernel_archs()) {
    morse_fizzbuzz const classic(*decimal::parse("1"), fizzgen::classic_rules(), 10, 4096, arch);
    EXPECT_EQ(classic.uses_kernel(), arch.morse_blocks != nullptr) << arch.name;
    morse_fizzbuzz const custom(*decimal::parse("1"), {{3, "Fizz"}}, 10, 4096, arch);
    EXPECT_EQ(custom.uses_kernel(), arch.morse_rules != nullptr) << arch.name;
    morse_fizzbuzz const long_period(*decimal::parse("1"), {{1000003, "Big"}}, 10, 4096, arch);
    EXPECT_FALSE(long_period.uses_kernel()) << arch.name;
  }
}

TEST(MorseFizzBuzz, EveryVectorArchCarriesItsMorseKernel) {
  // The registry's rows hold every kernel of their instruction set: a vector arch with a plain
  // FizzBuzz kernel has the Morse one too, and scalar has neither.
  for (auto const& arch : fizzgen::kernel_archs()) {
    EXPECT_EQ(arch.morse_blocks != nullptr, arch.blocks != nullptr) << arch.name;
    EXPECT_EQ(arch.morse_rules != nullptr, arch.blocks != nullptr) << arch.name;
  }
  EXPECT_EQ(fizzgen::kernel_archs().back().morse_blocks, nullptr);
  EXPECT_EQ(fizzgen::kernel_archs().back().morse_rules, nullptr);
}

TEST(MorseFizzBuzz, CustomRules) {
  std::vector<oracle::rules> const rule_sets{
      {{2, "a"}, {3, "bb"}, {7, "ccc"}},
      {{3, "###"}},        // no encodable character: an empty line
      {{2, "Two Words"}},  // a space inside a word is "/"
      {{3, "x\ty"}, {5, "\tz"}, {4, "%&"}},
      {{1, "Fizz"}},  // every line a word
      {{18446744073709551557ull, "Big"}},
  };
  for (auto const& rs : rule_sets) {
    for (std::string const from : {"1", "95", "18446744073709551550", "99999999999999999999999999999"}) {
      std::string const want = morse_oracle_lines(from, rs, 300);
      // Every arch: the lines are encoded with its Morse encoder kernel where it has one.
      for (auto const& arch : fizzgen::kernel_archs()) {
        if (!arch.available) continue;
        for (std::size_t chunk_bytes : {std::size_t{50}, std::size_t{4096}}) {
          morse_fizzbuzz const g(*decimal::parse(from), to_rule_set(rs), 300, chunk_bytes, arch);
          ASSERT_EQ(oracle::first_difference(fill_all(g), want), "")
              << rs[0].second << " from " << from << " on " << arch.name;
        }
      }
    }
  }
}

TEST(MorseFizzBuzz, CustomRulesPlanKernelOnEveryArchAgainstTheOracle) {
  // Whole blocks and the partial ones around them, for rule sets of short and long blocks, word
  // lines with and without numbers between them, and starts near 1, 10^9 and 10^18 (widths of one
  // 16-, 32- and 64-byte store and of several), cut into chunks of many sizes.
  std::string const long_word(150, 'w');
  std::vector<oracle::rules> const rule_sets{
      {{3, "Fizz"}, {5, "Buzz"}, {7, "Bazz"}},
      {{2, "Even"}, {7, "Seven"}},
      {{1, "Fizz"}},                                 // period 1: no number at all
      {{1, "a"}, {2, "b"}},                          // period 2: short word lines only
      {{4, long_word + " " + long_word}, {6, "?"}},  // a word line of many stores
      {{9, "Se&v*n x"}, {10, "#"}, {12, "%"}},       // shared codes, an empty line
      {{11, "Eleven"}, {13, "Thirteen"}},            // Q = 1430: blocks longer than a chunk
  };
  std::vector<std::pair<std::string, std::uint64_t>> const windows{
      {"1", 30000},
      {"95", 500},
      {"999999000", 5000},                   // up to 10^9 and past it
      {"999999999999999500", 4000},          // across 10^18
      {"12345678901234567890123456", 3000},  // a 26-digit prefix: several vectors
  };
  for (auto const& rs : rule_sets) {
    for (auto const& [from, count] : windows) {
      std::string const want = morse_oracle_lines(from, rs, count);
      for (auto const& arch : fizzgen::kernel_archs()) {
        if (!arch.available || arch.morse_rules == nullptr) continue;
        for (std::size_t chunk_bytes : {std::size_t{100}, std::size_t{7777}, morse_fizzbuzz::kDefaultChunkBytes}) {
          morse_fizzbuzz const g(*decimal::parse(from), to_rule_set(rs), count, chunk_bytes, arch);
          ASSERT_TRUE(g.uses_kernel()) << arch.name;
          ASSERT_EQ(oracle::first_difference(fill_all(g), want), "")
              << rs[0].second << " from " << from << " chunk " << chunk_bytes << " on " << arch.name;
        }
      }
    }
  }
}

/// Collects every emitted byte.
class collect_sink : public fizzgen::sink {
 public:
  fizzgen::emit_status emit(std::span<std::byte const> data) noexcept override {
    bytes.append(reinterpret_cast<char const*>(data.data()), data.size());
    return fizzgen::emit_status::ok;
  }
  bool shares_pages() const noexcept override { return false; }
  std::string_view path() const noexcept override { return "test"; }
  std::string bytes;
};

TEST(MorseFizzBuzz, EngineThreadsGiveTheOracleBytes) {
  std::string const from = "99999999999999999000";
  std::uint64_t const lines = 3000;
  std::string const want = morse_oracle_lines(from, oracle::classic(), lines);
  morse_fizzbuzz const g(*decimal::parse(from), fizzgen::classic_rules(), lines, 2000);
  for (unsigned t = 1; t <= 8; ++t) {
    collect_sink s;
    fizzgen::run_options o;
    o.threads = t;
    o.pin = false;
    fizzgen::run_report const r = fizzgen::run(g, s, o);
    ASSERT_EQ(oracle::first_difference(s.bytes, want), "") << t << " threads";
    EXPECT_EQ(r.bytes, want.size());
  }
  // A byte limit cuts the Morse stream exactly.
  collect_sink s;
  fizzgen::run_options o;
  o.threads = 3;
  o.pin = false;
  o.byte_limit = 12345;
  fizzgen::run(g, s, o);
  EXPECT_EQ(s.bytes, want.substr(0, 12345));
}

TEST(MorseFizzBuzz, DecodesBackToThePlainStreamUpperCased) {
  morse_fizzbuzz const g(*decimal::parse("1"), fizzgen::classic_rules(), 1000);
  EXPECT_EQ(morse::decode(fill_all(g)), morse_oracle::upper_without_uncodable(oracle::fizzbuzz_lines("1", 1000)));
}

}  // namespace
