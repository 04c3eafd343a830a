// The classic FizzBuzz kernel for AVX-512 VBMI: the only file compiled with its flags.
//
// Instead of one store per line, every 64 output bytes are one byte permutation (vpermi2b) of a
// 128-byte source that holds all a 30-line block can contain: the three prefixes of the block
// (3k, 3k+1, 3k+2, 32 bytes each) and the constant bytes "0123456789Fizz\nBuzz\n". A table, built
// once per call for the digit width, says which source byte each output byte is. So a block of
// 16d+94 bytes costs ceil((16d+94)/64) permutes and stores, close to memset's one store per 64.
// Up to 17 digits, pairs of blocks share one source (six prefixes of 16 bytes), which halves
// the work per store that is not the permute and the store.

#include <immintrin.h>

// GCC 12's avx512fintrin.h trips -Wmaybe-uninitialized on the undefined upper half of
// _mm512_castsi256_si512 and -Wuninitialized on the undefined source of _mm512_broadcast_i32x4
// wherever they are inlined: known false alarms, silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <utility>

namespace fizzgen {
namespace {

constexpr int kDigits = 96;  // source bytes 96..105: '0'..'9'
constexpr std::uint8_t kF = 106, kI = 107, kZ = 108, kB = 109, kU = 110, kNewline = 111;
constexpr std::size_t kMaxBlock = 16 * 33 + 94;  // the block at the widest width this kernel takes
constexpr std::size_t kMaxVectors = (kMaxBlock + 63) / 64;

/// Source byte index of every output byte of `lines` lines (30 or 60) from a number 1 mod `lines`
/// at prefix length len; returns vectors used. Number n*lines + j has the prefix in source slot
/// j/10, `slot` bytes each; its digit i at byte i of the slot, or with `pinned` its last two
/// digits at the slot's last two bytes.
std::size_t build_table(std::uint8_t* table, std::size_t len, int lines, std::size_t slot, bool pinned) noexcept {
  std::uint8_t* t = table;
  auto word = [&](std::initializer_list<std::uint8_t> bytes) {
    for (std::uint8_t b : bytes) *t++ = b;
  };
  for (int j = 1; j <= lines; ++j) {
    if (j % 15 == 0) {
      word({kF, kI, kZ, kZ, kB, kU, kZ, kZ, kNewline});
    } else if (j % 3 == 0) {
      word({kF, kI, kZ, kZ, kNewline});
    } else if (j % 5 == 0) {
      word({kB, kU, kZ, kZ, kNewline});
    } else {
      std::size_t const base = slot * static_cast<std::size_t>(j / 10);
      for (std::size_t i = 0; i < len; ++i)
        *t++ = static_cast<std::uint8_t>(base + (pinned && i + 2 >= len ? slot - (len - i) : i));
      word({static_cast<std::uint8_t>(kDigits + j % 10), kNewline});
    }
  }
  std::size_t const bytes = static_cast<std::size_t>(t - table);
  std::size_t const vectors = (bytes + 63) / 64;
  std::memset(t, kNewline, vectors * 64 - bytes);  // tail bytes: overwritten by the next block
  return vectors;
}

/// prefix + 1 (digits in bytes [0, len)); one = 1 at byte len-1. The carry branch is taken once
/// in ten increments, in a pattern that repeats every ten blocks, which branch predictors learn:
/// measured faster than a branch-free carry, whose longer dependency chain every block pays.
__m256i increment(__m256i p, __m256i one, std::size_t len) noexcept {
  __m256i const q = _mm256_add_epi8(p, one);
  if (_mm256_movemask_epi8(_mm256_cmpeq_epi8(q, _mm256_set1_epi8(':'))) == 0) [[likely]]
    return q;
  alignas(32) std::uint8_t bytes[32];
  _mm256_store_si256(reinterpret_cast<__m256i*>(bytes), p);
  std::size_t i = len;
  while (bytes[i - 1] == '9') bytes[--i] = '0';  // the caller guarantees the width never grows
  ++bytes[i - 1];
  return _mm256_load_si256(reinterpret_cast<__m256i const*>(bytes));
}

/// The 256-bit value in the low half; the high half is about to be overwritten by an insert.
__m512i widen(__m256i v) noexcept { return _mm512_castsi256_si512(v); }

/// Writes `blocks` blocks with V output vectors each (V fixed at compile time, so the index
/// vectors stay in registers and the inner loop unrolls). Requires len >= 2.
///
/// The prefix is split into its last two digits t and the rest ("high"): within a run of blocks
/// whose prefixes stay below the next hundred, prefix 3k+i is just high | low[t+i], two table
/// loads and ORs, no carries at all. Only the block that crosses a hundred takes the increments.
template <std::size_t V>
char* write_blocks(char* out, __m256i& prefix, __m256i one, std::size_t len, std::uint8_t const* table,
                   std::uint64_t blocks) noexcept {
  __m512i index[V];
  for (std::size_t v = 0; v < V; ++v) index[v] = _mm512_load_si512(table + 64 * v);
  std::size_t const block_bytes = 16 * (len + 1) + 94;
  alignas(32) static constexpr char kConstants[33] = "0123456789FizBu\n________________";
  __m256i const constants = _mm256_load_si256(reinterpret_cast<__m256i const*>(kConstants));

  // low[t]: the digits of t (00..99) at the prefix's last two bytes.
  alignas(32) std::uint8_t low_bytes[100][32] = {};
  for (unsigned t = 0; t < 100; ++t) {
    low_bytes[t][len - 2] = static_cast<std::uint8_t>('0' + t / 10 % 10);
    low_bytes[t][len - 1] = static_cast<std::uint8_t>('0' + t % 10);
  }
  auto low = [&](unsigned t) { return _mm256_load_si256(reinterpret_cast<__m256i const*>(low_bytes[t])); };
  alignas(32) std::uint8_t mask_bytes[32] = {};
  std::memset(mask_bytes, 0xFF, len - 2);
  __m256i const high_mask = _mm256_load_si256(reinterpret_cast<__m256i const*>(mask_bytes));

  auto emit = [&](__m256i p0, __m256i p1, __m256i p2) {
    __m512i const lo = _mm512_inserti64x4(widen(p0), p1, 1);
    __m512i const hi = _mm512_inserti64x4(widen(p2), constants, 1);
    for (std::size_t v = 0; v < V; ++v) _mm512_storeu_si512(out + 64 * v, _mm512_permutex2var_epi8(lo, index[v], hi));
    out += block_bytes;
  };

  __m256i p0 = prefix;
  while (blocks > 0) {
    alignas(32) std::uint8_t digits[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(digits), p0);
    unsigned t = (digits[len - 2] - '0') * 10u + (digits[len - 1] - '0');
    __m256i const high = _mm256_and_si256(p0, high_mask);
    // Blocks whose three prefixes t, t+1, t+2 stay within this hundred.
    std::uint64_t const run = std::min<std::uint64_t>(blocks, (100 - t) / 3);
    for (std::uint64_t b = 0; b < run; ++b, t += 3)
      emit(_mm256_or_si256(high, low(t)), _mm256_or_si256(high, low(t + 1)), _mm256_or_si256(high, low(t + 2)));
    blocks -= run;
    if (t < 100) {
      p0 = _mm256_or_si256(high, low(t));
    } else {  // the run ended exactly at the hundred (t == 100): carry into high
      p0 = increment(_mm256_or_si256(high, low(99)), one, len);
    }
    if (blocks == 0) break;
    // The block that crosses into the next hundred.
    __m256i const p1 = increment(p0, one, len);
    __m256i const p2 = increment(p1, one, len);
    emit(p0, p1, p2);
    p0 = increment(p2, one, len);
    --blocks;
  }
  prefix = p0;
  return out;
}

/// Blocks at prefix length 1, prefix by prefix.
char* write_blocks_short(char* out, __m256i& prefix, __m256i one, std::size_t len, std::uint8_t const* table,
                         std::size_t vectors, std::uint64_t blocks) noexcept {
  alignas(32) static constexpr char kConstants[33] = "0123456789FizBu\n________________";
  __m256i const constants = _mm256_load_si256(reinterpret_cast<__m256i const*>(kConstants));
  std::size_t const block_bytes = 16 * (len + 1) + 94;
  __m256i p0 = prefix;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    __m256i const p1 = increment(p0, one, len);
    __m256i const p2 = increment(p1, one, len);
    __m512i const lo = _mm512_inserti64x4(widen(p0), p1, 1);
    __m512i const hi = _mm512_inserti64x4(widen(p2), constants, 1);
    for (std::size_t v = 0; v < vectors; ++v)
      _mm512_storeu_si512(out + 64 * v, _mm512_permutex2var_epi8(lo, _mm512_load_si512(table + 64 * v), hi));
    out += block_bytes;
    p0 = increment(p2, one, len);
  }
  prefix = p0;
  return out;
}

// Prefixes up to 16 digits take pairs of blocks: the six prefixes of 60 lines fit a 128-byte
// source as 16-byte slots, so one source serves twice the stores and its cost per store halves.
// In its slot a prefix keeps its high digits at bytes 0..len-3 and its last two digits at bytes
// 14 and 15, whatever the width, so the table of those last digits is one constant.
constexpr std::size_t kPairMaxLen = 16;
constexpr std::size_t kPairMaxVectors = (2 * (16 * (kPairMaxLen + 1) + 94) + 63) / 64;
constexpr std::size_t kPairSlot = 16, kTens = 14, kUnits = 15;

/// pair_lows[t]: the source of a pair of blocks without the high digits: slot s holds the last
/// two digits of t + s (mod 100), and bytes 96..111 the constant bytes.
struct pair_lows {
  alignas(64) std::uint8_t bytes[100][128];
};

constexpr pair_lows make_pair_lows() noexcept {
  pair_lows l{};
  constexpr char kConstantBytes[] = "0123456789FizBu\n";
  for (unsigned t = 0; t < 100; ++t) {
    for (unsigned s = 0; s < 6; ++s) {
      l.bytes[t][16 * s + kTens] = static_cast<std::uint8_t>('0' + (t + s) % 100 / 10);
      l.bytes[t][16 * s + kUnits] = static_cast<std::uint8_t>('0' + (t + s) % 10);
    }
    for (unsigned c = 0; c < 16; ++c) l.bytes[t][kDigits + c] = static_cast<std::uint8_t>(kConstantBytes[c]);
  }
  return l;
}

constexpr pair_lows kPairLows = make_pair_lows();

/// The high digits (bytes [0, n)) plus one; past the last prefix of the stream the width may not
/// hold it, but such a high is never written.
void increment_high(std::uint8_t* high, std::size_t n) noexcept {
  std::size_t i = n;
  while (i > 0 && high[i - 1] == '9') high[--i] = '0';
  if (i > 0) ++high[i - 1];
}

/// Writes `pairs` pairs of blocks with V output vectors each, from the prefix in digits[0, len),
/// 2 <= len <= kPairMaxLen; leaves the next prefix there. A run of pairs within a hundred starts
/// from the high digits ORed with a row of kPairLows and adds 6 to the last digits from pair to
/// pair; the pair whose six prefixes cross a hundred takes the next high digits in the slots past
/// it by a mask blend.
template <std::size_t V>
char* write_pairs(char* out, std::uint8_t* digits, std::size_t len, std::uint8_t const* table,
                  std::uint64_t pairs) noexcept {
  __m512i index[V];
  for (std::size_t v = 0; v < V; ++v) index[v] = _mm512_load_si512(table + 64 * v);
  std::size_t const pair_bytes = 2 * (16 * (len + 1) + 94);
  std::size_t const high_len = len - 2;
  unsigned t = (digits[len - 2] - '0') * 10u + (digits[len - 1] - '0');
  alignas(16) std::uint8_t high_bytes[16] = {}, next_bytes[16] = {};
  std::memcpy(high_bytes, digits, high_len);
  std::memcpy(next_bytes, digits, high_len);
  increment_high(next_bytes, high_len);
  // Slots 0..3 in the first source vector, 4 and 5 in the second (its slots 6 and 7 are zero).
  auto spread = [](std::uint8_t const* bytes, __m512i& lo, __m512i& hi) {
    __m128i const h = _mm_load_si128(reinterpret_cast<__m128i const*>(bytes));
    lo = _mm512_broadcast_i32x4(h);
    hi = _mm512_maskz_broadcast_i32x4(0x00FF, h);
  };
  __m512i high_lo, high_hi, next_lo, next_hi;
  spread(high_bytes, high_lo, high_hi);
  spread(next_bytes, next_lo, next_hi);
  auto emit = [&](__m512i lo, __m512i hi) {
    for (std::size_t v = 0; v < V; ++v) _mm512_storeu_si512(out + 64 * v, _mm512_permutex2var_epi8(lo, index[v], hi));
    out += pair_bytes;
  };
  auto next_hundred = [&] {
    std::memcpy(high_bytes, next_bytes, 16);
    high_lo = next_lo, high_hi = next_hi;
    increment_high(next_bytes, high_len);
    spread(next_bytes, next_lo, next_hi);
  };
  // Adds 6 to the last two digits of the slots whose last 16-bit word is in `slots`: tens in the
  // word's low byte, units in its high one, so a units digit past '9' gives a word of at least
  // 0x3A00, and taking 0x09FF off is ten off the units and one onto the tens. Registers only:
  // measured faster than a load of the next row of kPairLows.
  __m512i const six = _mm512_set1_epi16(0x0600), carry_at = _mm512_set1_epi16(0x3A00),
                carry = _mm512_set1_epi16(0x09FF);
  auto add6 = [&](__m512i v, __mmask32 slots) {
    __m512i const w = _mm512_mask_add_epi16(v, slots, v, six);
    return _mm512_mask_sub_epi16(w, _mm512_mask_cmpge_epu16_mask(slots, w, carry_at), w, carry);
  };
  auto lows = [](unsigned row, unsigned half) { return _mm512_load_si512(kPairLows.bytes[row] + 64 * half); };

  while (pairs > 0) {
    // Pairs whose six prefixes t .. t+5 stay within this hundred.
    std::uint64_t const run = std::min<std::uint64_t>(pairs, (100 - t) / 6);
    __m512i lo = _mm512_or_si512(high_lo, lows(t, 0)), hi = _mm512_or_si512(high_hi, lows(t, 1));
    for (std::uint64_t b = 0; b < run; ++b) {
      emit(lo, hi);
      lo = add6(lo, 0x80808080u), hi = add6(hi, 0x8080u);
    }
    t += static_cast<unsigned>(6 * run);
    pairs -= run;
    if (t == 100) {  // the run ended at the hundred
      t = 0;
      next_hundred();
      continue;
    }
    if (pairs == 0) break;
    // The pair that crosses into the next hundred: slots s >= 100 - t, two 64-bit lanes each.
    unsigned const cross = 100 - t;
    auto const all = static_cast<std::uint16_t>(0xFFFu << (2 * cross));
    auto const k_lo = static_cast<__mmask8>(all), k_hi = static_cast<__mmask8>(all >> 8);
    emit(_mm512_or_si512(_mm512_mask_blend_epi64(k_lo, high_lo, next_lo), lows(t, 0)),
         _mm512_or_si512(_mm512_mask_blend_epi64(k_hi, high_hi, next_hi), lows(t, 1)));
    t = t + 6 - 100;
    next_hundred();
    --pairs;
  }
  std::memcpy(digits, high_bytes, high_len);
  digits[len - 2] = static_cast<std::uint8_t>('0' + t / 10);
  digits[len - 1] = static_cast<std::uint8_t>('0' + t % 10);
  return out;
}

/// write(std::integral_constant<std::size_t, vectors>{}), for vectors in [1, sizeof...(V)].
template <class Write, std::size_t... V>
char* dispatch_vectors(std::size_t vectors, std::index_sequence<V...>, Write write) noexcept {
  char* end = nullptr;
  static_cast<void>(
      ((vectors == V + 1 ? (end = write(std::integral_constant<std::size_t, V + 1>{}), true) : false) || ...));
  return end;
}

}  // namespace

/// The generic kernel compiled for AVX-512BW (its own file: never instantiated here, so the linker
/// cannot mix the two builds), which takes the prefixes too long for the permutation table.
char* fizzbuzz_blocks_avx512bw(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept;

/// See fizzbuzz_blocks. Stores up to 64 bytes past the returned end.
char* fizzbuzz_blocks_avx512vbmi(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept {
  if (prefix_len > 32) return fizzbuzz_blocks_avx512bw(out, prefix, prefix_len, blocks);
  std::size_t const len = prefix_len;
  if (len >= 2 && len <= kPairMaxLen && blocks >= 2) {
    alignas(64) std::uint8_t pair_table[kPairMaxVectors * 64];
    std::size_t const vectors = build_table(pair_table, len, 60, kPairSlot, true);
    alignas(16) std::uint8_t digits[16];
    std::memcpy(digits, prefix, len);
    out = dispatch_vectors(vectors, std::make_index_sequence<kPairMaxVectors>{}, [&](auto v) {
      return write_pairs<decltype(v)::value>(out, digits, len, pair_table, blocks / 2);
    });
    std::memcpy(prefix, digits, len);
    blocks %= 2;
    if (blocks == 0) return out;
  }
  alignas(64) std::uint8_t table[kMaxVectors * 64];
  std::size_t const vectors = build_table(table, len, 30, 32, false);

  alignas(32) std::uint8_t bytes[32] = {};
  std::memcpy(bytes, prefix, len);
  __m256i p0 = _mm256_load_si256(reinterpret_cast<__m256i const*>(bytes));
  std::memset(bytes, 0, sizeof bytes);
  bytes[len - 1] = 1;
  __m256i const one = _mm256_load_si256(reinterpret_cast<__m256i const*>(bytes));
  if (len < 2) {
    // Two-digit numbers (10..99) are too few to matter: one carry-checked increment per prefix.
    out = write_blocks_short(out, p0, one, len, table, vectors, blocks);
  } else {
    out = dispatch_vectors(vectors, std::make_index_sequence<kMaxVectors>{},
                           [&](auto v) { return write_blocks<decltype(v)::value>(out, p0, one, len, table, blocks); });
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(bytes), p0);
  std::memcpy(prefix, bytes, len);
  return out;
}

}  // namespace fizzgen
