// The classic FizzBuzz kernel for AVX-512 VBMI: the only file compiled with its flags.
//
// Instead of one store per line, every 64 output bytes are one byte permutation (vpermi2b) of a
// 128-byte source that holds all a 30-line block can contain: the three prefixes of the block
// (3k, 3k+1, 3k+2, 32 bytes each) and the constant bytes "0123456789Fizz\nBuzz\n". A table, built
// once per digit width and thread, says which source byte each output byte is. So a block of
// 16d+94 bytes costs ceil((16d+94)/64) permutes and stores, close to memset's one store per 64.
// Up to 17 digits, pairs of blocks share one source (the prefixes in 16-byte slots), which halves
// the work per store that is not the permute and the store; from 7 digits, and from 18 to 107,
// every store is a whole aligned 64-byte line of the output (below).

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

#include "generators/simd/aligned_lines_impl.hpp"

namespace fizzgen {

/// The generic kernel compiled for AVX-512BW (its own file: never instantiated here, so the linker
/// cannot mix the two builds), which takes the prefixes too long for the permutation table.
char* fizzbuzz_blocks_avx512bw(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept;

namespace {

constexpr int kDigits = 96;  // source bytes 96..105: '0'..'9'
constexpr std::uint8_t kF = 106, kI = 107, kZ = 108, kB = 109, kU = 110, kNewline = 111;
constexpr std::size_t kMaxBlock = 16 * 33 + 94;  // the block at the widest width this kernel takes
constexpr std::size_t kMaxVectors = (kMaxBlock + 63) / 64;

/// Source byte index of every output byte of `lines` lines (30 or 60) from a number 1 mod `lines`
/// at prefix length len; returns vectors used. Number n*lines + j has the prefix in source slot
/// j/10, `slot` bytes each; its digit i at byte i of the slot, or with `pinned` its last two
/// digits at the slot's last two bytes.
std::size_t build_table(std::uint8_t* table, std::size_t len, int lines, std::size_t slot, bool pinned,
                        std::uint8_t constants = kDigits) noexcept {
  // The constant bytes "0123456789FizBu\n" from source byte `constants` on.
  auto const at = [constants](std::uint8_t k) { return static_cast<std::uint8_t>(constants + (k - kDigits)); };
  std::uint8_t const f = at(kF), i_ = at(kI), z = at(kZ), bee = at(kB), u = at(kU), newline = at(kNewline);
  std::uint8_t* t = table;
  auto word = [&](std::initializer_list<std::uint8_t> bytes) {
    for (std::uint8_t b : bytes) *t++ = b;
  };
  for (int j = 1; j <= lines; ++j) {
    if (j % 15 == 0) {
      word({f, i_, z, z, bee, u, z, z, newline});
    } else if (j % 3 == 0) {
      word({f, i_, z, z, newline});
    } else if (j % 5 == 0) {
      word({bee, u, z, z, newline});
    } else {
      std::size_t const base = slot * static_cast<std::size_t>(j / 10);
      for (std::size_t i = 0; i < len; ++i)
        *t++ = static_cast<std::uint8_t>(base + (pinned && i + 2 >= len ? slot - (len - i) : i));
      word({static_cast<std::uint8_t>(constants + j % 10), newline});
    }
  }
  std::size_t const bytes = static_cast<std::size_t>(t - table);
  std::size_t const vectors = (bytes + 63) / 64;
  std::memset(t, newline, vectors * 64 - bytes);  // tail bytes: overwritten by the next block
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
// 14 and 15, whatever the width, so the table of those last digits is one constant. Slot 6 holds
// the first prefix of the next pair and slot 7 the constant bytes.
//
// From 6 prefix digits on, every store is a whole aligned 64-byte line: a pair's bytes are cut
// at the output's 64-byte boundaries instead of its own, so a line is written once and never
// split between two (unaligned stores: 1.2x the time of aligned ones into L2 here, and a pair of
// 16d+94-byte blocks is never a multiple of 64). The windows of a pair are loads from one
// linear index table at the pair's phase; the last window reaches into the next pair's first
// ten lines (slot 6), which from 6 digits on are longer than 63 bytes. Below 6 digits (the
// first million numbers) the pairs are written with overlapping unaligned stores.
constexpr std::size_t kPairMaxLen = 16, kAlignedMinLen = 6;
constexpr std::size_t kPairMaxVectors = (2 * (16 * (kPairMaxLen + 1) + 94) + 63) / 64;
constexpr std::size_t kPairSlot = 16, kTens = 14, kUnits = 15;
constexpr std::uint8_t kPairConstants = 112;  // slot 7
/// The linear index table: 64 bytes before the pair (the first window of a chunk that starts
/// inside a line, masked), the pair's 60 lines and the next ten, padding for the windows past them.
constexpr std::size_t kLineIndexBytes = 64 * (kPairMaxVectors + 4);

/// pair_lows[t]: the source of a pair of blocks without the high digits: slot s < 7 holds the
/// last two digits of t + s (mod 100), slot 7 the constant bytes.
struct pair_lows {
  alignas(64) std::uint8_t bytes[100][128];
};

constexpr pair_lows make_pair_lows() noexcept {
  pair_lows l{};
  constexpr char kConstantBytes[] = "0123456789FizBu\n";
  for (unsigned t = 0; t < 100; ++t) {
    for (unsigned s = 0; s < 7; ++s) {
      l.bytes[t][16 * s + kTens] = static_cast<std::uint8_t>('0' + (t + s) % 100 / 10);
      l.bytes[t][16 * s + kUnits] = static_cast<std::uint8_t>('0' + (t + s) % 10);
    }
    for (unsigned c = 0; c < 16; ++c) l.bytes[t][kPairConstants + c] = static_cast<std::uint8_t>(kConstantBytes[c]);
  }
  return l;
}

constexpr pair_lows kPairLows = make_pair_lows();

/// The high digits (bytes [0, n) of h, zero after) plus one, in registers: byte stores followed
/// by a vector load of the same bytes wait for the stores (7% of a kernel's time in a profile
/// when it was done in memory). Past the last prefix of the stream the width may not hold it
/// (all nines become zeros), but such a high is never written.
__m128i increment_high(__m128i h, std::size_t n) noexcept {
  if (n == 0) return h;
  auto const field = static_cast<std::uint32_t>((1u << n) - 1);
  auto const nines = static_cast<std::uint32_t>(_mm_movemask_epi8(_mm_cmpeq_epi8(h, _mm_set1_epi8('9')))) & field;
  std::uint32_t const others = ~nines & field;  // the last of them is the digit that goes up
  unsigned const up = others == 0 ? 32 : 31 - static_cast<unsigned>(__builtin_clz(others));
  std::uint64_t const zeros = up == 32 ? field : field & ~((2u << up) - 1);
  __m512i v = _mm512_mask_mov_epi8(_mm512_zextsi128_si512(h), zeros, _mm512_set1_epi8('0'));
  if (up != 32) v = _mm512_mask_add_epi8(v, std::uint64_t{1} << up, v, _mm512_set1_epi8(1));
  return _mm512_castsi512_si128(v);
}

/// Writes `pairs` pairs of blocks of V output vectors (rounded up) each, from the prefix in
/// digits[0, len), 2 <= len <= kPairMaxLen (Aligned: from kAlignedMinLen); leaves the next prefix
/// there. `index` is the linear index table, from its pair's first byte (64 bytes before it
/// readable). A run of pairs within a hundred starts from the high digits ORed with a row of
/// kPairLows and adds 6 to the last digits from pair to pair; the pair whose seven prefixes cross
/// a hundred takes the next high digits in the slots past it by a mask blend.
template <std::size_t V, bool Aligned>
char* write_pairs(char* out, std::uint8_t* digits, std::size_t len, std::uint8_t const* index,
                  std::uint64_t pairs) noexcept {
  std::size_t const pair_bytes = 2 * (16 * (len + 1) + 94);
  std::size_t const high_len = len - 2;
  unsigned t = (digits[len - 2] - '0') * 10u + (digits[len - 1] - '0');
  alignas(16) std::uint8_t high_bytes[16] = {};
  std::memcpy(high_bytes, digits, high_len);
  __m128i high = _mm_load_si128(reinterpret_cast<__m128i const*>(high_bytes));
  __m128i next = increment_high(high, high_len);
  // Slots 0..3 in the first source vector, 4..6 in the second (its slot 7 is the constants').
  auto spread = [](__m128i h, __m512i& lo, __m512i& hi) {
    lo = _mm512_broadcast_i32x4(h);
    hi = _mm512_maskz_broadcast_i32x4(0x0FFF, h);
  };
  __m512i high_lo, high_hi, next_lo, next_hi;
  spread(high, high_lo, high_hi);
  spread(next, next_lo, next_hi);
  char* start = out;  // the pair's first byte
  // Aligned: the first window of the pair that starts at or after its first byte, at start + at;
  // the bytes before it were written by the pair before (or, for the first, by a masked store).
  std::size_t at = Aligned ? (0 - reinterpret_cast<std::uintptr_t>(out)) & 63 : 0;
  __m512i fixed[Aligned ? 1 : V];
  if constexpr (!Aligned) {
    for (std::size_t v = 0; v < V; ++v) fixed[v] = _mm512_load_si512(index + 64 * v);
  }
  auto window = [&](std::size_t from, __m512i lo, __m512i hi) {
    return _mm512_permutex2var_epi8(lo, _mm512_loadu_si512(index + from), hi);
  };
  bool first = Aligned && at != 0;
  // Writes a pair from the source lo:hi; `last`: the call's last pair.
  auto emit = [&](__m512i lo, __m512i hi, bool last) {
    if constexpr (Aligned) {
      if (first) [[unlikely]] {  // the chunk's bytes before its first aligned line
        _mm512_mask_storeu_epi8(start + at - 64, ~std::uint64_t{0} << (64 - at),
                                _mm512_permutex2var_epi8(lo, _mm512_loadu_si512(index + at - 64), hi));
        first = false;
      }
      if (!last) [[likely]] {
        // V - 1 windows always reach into the pair; the last one only at some phases (a
        // branch measured faster than storing it always, to be written again by the next pair).
        for (std::size_t v = 0; v + 1 < V; ++v) _mm512_store_si512(start + at + 64 * v, window(at + 64 * v, lo, hi));
        if (at + 64 * (V - 1) < pair_bytes)
          _mm512_store_si512(start + at + 64 * (V - 1), window(at + 64 * (V - 1), lo, hi));
      } else {  // the last pair: no store past its end but the one that finishes its last line
        for (std::size_t from = at; from < pair_bytes; from += 64)
          _mm512_store_si512(start + from, window(from, lo, hi));
      }
      at = (at - pair_bytes) & 63;
    } else {
      for (std::size_t v = 0; v < V; ++v)
        _mm512_storeu_si512(start + 64 * v, _mm512_permutex2var_epi8(lo, fixed[v], hi));
    }
    start += pair_bytes;
  };
  auto next_hundred = [&] {
    high = next;
    high_lo = next_lo, high_hi = next_hi;
    next = increment_high(next, high_len);
    spread(next, next_lo, next_hi);
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
    // Pairs whose seven prefixes t .. t+6 stay within this hundred; then t is 94..99.
    std::uint64_t const run = std::min<std::uint64_t>(pairs, (99 - t) / 6);
    __m512i lo = _mm512_or_si512(high_lo, lows(t, 0)), hi = _mm512_or_si512(high_hi, lows(t, 1));
    for (std::uint64_t b = 0; b < run; ++b) {
      emit(lo, hi, pairs == 1);
      --pairs;
      lo = add6(lo, 0x80808080u), hi = add6(hi, 0x808080u);
    }
    t += static_cast<unsigned>(6 * run);
    if (pairs == 0) break;
    // The pair that crosses into the next hundred: slots s >= 100 - t, two 64-bit lanes each
    // (slot 7's high digits are zero in both).
    unsigned const cross = 100 - t;
    auto const all = static_cast<std::uint16_t>(0xFFFFu << (2 * cross));
    auto const k_lo = static_cast<__mmask8>(all), k_hi = static_cast<__mmask8>(all >> 8);
    emit(_mm512_or_si512(_mm512_mask_blend_epi64(k_lo, high_lo, next_lo), lows(t, 0)),
         _mm512_or_si512(_mm512_mask_blend_epi64(k_hi, high_hi, next_hi), lows(t, 1)), pairs == 1);
    --pairs;
    t = t + 6 - 100;
    next_hundred();
  }
  _mm_store_si128(reinterpret_cast<__m128i*>(high_bytes), high);
  std::memcpy(digits, high_bytes, high_len);
  digits[len - 2] = static_cast<std::uint8_t>('0' + t / 10);
  digits[len - 1] = static_cast<std::uint8_t>('0' + t % 10);
  return start;
}

// Wider prefixes (17 to 106 digits) take single blocks, every store a whole aligned line as
// above: one source of 128 bytes holds the high digits once (bytes 0..len-3, shared by the
// block's three prefixes and the next block's first, which the last window reaches into), the
// last two digits of those four prefixes at bytes 104..111, and the constant bytes. In the block
// whose four prefixes cross a hundred (one in about 33) each window is permuted from two
// sources, the high digits and the high digits plus one, and blended by the decade of each
// byte's line (handing that block to the generic kernel cost 17% of the time at 59 digits).
// From 17 on, not 33: the 32-byte prefix slots of write_blocks, which took 17 to 32, ran at 0.60x
// of 10 digits at 26 digits, this path at 0.82x (fizzgen_kernel_bench, Xeon, 2026-12-05).
constexpr std::size_t kWideMinLen = 17, kWideMaxLen = 106;
constexpr std::uint8_t kWideLows = 104;
constexpr std::size_t kWideMaxWhole = (16 * (kWideMaxLen + 1) + 94) / 64;
/// The padding before the block, its 30 lines and the next block's first ten, padding after.
constexpr std::size_t kWideIndexBytes = 64 + 40 * (kWideMaxLen + 2) + 128;

/// For a block at prefix length len (kWideMinLen..kWideMaxLen), from 64 bytes on: `index`, the
/// linear index table (the bytes before and after index a newline), and `decade`, the prefix
/// (0..3, 3 the next block's first) of the line of each byte (0 for the words and padding).
void build_wide_tables(std::uint8_t* index, std::uint8_t* decade, std::size_t len) noexcept {
  auto const at = [](std::uint8_t k) { return static_cast<std::uint8_t>(kPairConstants + (k - kDigits)); };
  std::memset(index, at(kNewline), kWideIndexBytes);
  std::memset(decade, 0, kWideIndexBytes);
  std::uint8_t* t = index + 64;
  auto word = [&](std::initializer_list<std::uint8_t> bytes) {
    for (std::uint8_t b : bytes) *t++ = at(b);
  };
  for (int j = 1; j <= 40; ++j) {
    if (j % 15 == 0) {
      word({kF, kI, kZ, kZ, kB, kU, kZ, kZ, kNewline});
    } else if (j % 3 == 0) {
      word({kF, kI, kZ, kZ, kNewline});
    } else if (j % 5 == 0) {
      word({kB, kU, kZ, kZ, kNewline});
    } else {
      auto const line = static_cast<std::size_t>(t - index);
      auto const pair = static_cast<std::uint8_t>(kWideLows + 2 * (j / 10));
      for (std::size_t i = 0; i + 2 < len; ++i) *t++ = static_cast<std::uint8_t>(i);
      *t++ = pair;
      *t++ = static_cast<std::uint8_t>(pair + 1);
      word({static_cast<std::uint8_t>(kDigits + j % 10), kNewline});
      std::memset(decade + line, j / 10, static_cast<std::size_t>(t - index) - line);
    }
  }
}

/// Writes `blocks` blocks at prefix length len (kWideMinLen..kWideMaxLen) from the prefix in
/// prefix[0, len), leaving the next prefix there; `index` and `decade` are build_wide_tables',
/// from the block's first byte; W is the block's bytes / 64.
template <std::size_t W>
char* write_wide(char* out, char* prefix, std::size_t len, std::uint8_t const* index, std::uint8_t const* decade,
                 std::uint64_t blocks) noexcept {
  std::size_t const block_bytes = 16 * (len + 1) + 94;
  std::size_t const high_len = len - 2;
  aligned_lines lines(out, block_bytes);
  // The last two digits of the four prefixes as 16-bit words 20..23 of the source's second half,
  // tens in the low byte: plus three, a units digit past '9' carries as in write_pairs' add6.
  __m512i const three = _mm512_set1_epi16(0x0300), carry_at = _mm512_set1_epi16(0x3A00),
                carry = _mm512_set1_epi16(0x09FF);
  constexpr __mmask32 kLows = 0x00F00000;
  alignas(64) std::uint8_t source[128] = {};
  std::memcpy(source + kPairConstants, "0123456789FizBu\n", 16);
  while (blocks > 0) {
    unsigned t = static_cast<unsigned>(prefix[len - 2] - '0') * 10u + static_cast<unsigned>(prefix[len - 1] - '0');
    std::memcpy(source, prefix, high_len);
    for (unsigned k = 0; k < 4; ++k) {
      source[kWideLows + 2 * k] = static_cast<std::uint8_t>('0' + (t + k) % 100 / 10);
      source[kWideLows + 2 * k + 1] = static_cast<std::uint8_t>('0' + (t + k) % 10);
    }
    __m512i const lo = _mm512_load_si512(source);
    __m512i hi = _mm512_load_si512(source + 64);
    if (t > 96) {  // the four prefixes cross a hundred: those from 100 - t on take the next high
      alignas(64) std::uint8_t up[128];
      std::memcpy(up, source, sizeof up);
      increment_digits(up, high_len);  // all nines only past the stream's last prefix: not written
      __m512i const up_lo = _mm512_load_si512(up), up_hi = _mm512_load_si512(up + 64);
      __m512i const later = _mm512_set1_epi8(static_cast<char>(100 - t));
      lines.block<W>([&](std::ptrdiff_t from) {
        __m512i const i = _mm512_loadu_si512(index + from);
        return _mm512_mask_blend_epi8(_mm512_cmpge_epu8_mask(_mm512_loadu_si512(decade + from), later),
                                      _mm512_permutex2var_epi8(lo, i, hi), _mm512_permutex2var_epi8(up_lo, i, up_hi));
      });
      std::memcpy(prefix, up, high_len);
      t = t + 3 - 100;
      prefix[len - 2] = static_cast<char>('0' + t / 10);
      prefix[len - 1] = static_cast<char>('0' + t % 10);
      --blocks;
      continue;
    }
    std::uint64_t const run = std::min<std::uint64_t>(blocks, (96 - t) / 3 + 1);
    for (std::uint64_t b = 0; b < run; ++b) {
      lines.block<W>(
          [&](std::ptrdiff_t from) { return _mm512_permutex2var_epi8(lo, _mm512_loadu_si512(index + from), hi); });
      __m512i const w = _mm512_mask_add_epi16(hi, kLows, hi, three);
      hi = _mm512_mask_sub_epi16(w, _mm512_mask_cmpge_epu16_mask(kLows, w, carry_at), w, carry);
    }
    t += static_cast<unsigned>(3 * run);
    prefix[len - 2] = static_cast<char>('0' + t / 10);
    prefix[len - 1] = static_cast<char>('0' + t % 10);
    blocks -= run;
  }
  return lines.end();
}

}  // namespace

/// See fizzbuzz_blocks. Stores up to 64 bytes past the returned end.
char* fizzbuzz_blocks_avx512vbmi(char* out, char* prefix, std::size_t prefix_len, std::uint64_t blocks) noexcept {
  std::size_t const len = prefix_len;
  if (len > kWideMaxLen) return fizzbuzz_blocks_avx512bw(out, prefix, len, blocks);
  // The tables of the last width this thread wrote: a chunk is one call, and building them
  // (byte by byte) each time cost 3% of a chunk of 1 MiB.
  struct tables {
    std::size_t len = 0, block_vectors = 0;
    alignas(64) std::uint8_t line_index[kLineIndexBytes];
    alignas(64) std::uint8_t block[kMaxVectors * 64];
    alignas(64) std::uint8_t wide[kWideIndexBytes];
    alignas(64) std::uint8_t decade[kWideIndexBytes];
  };
  thread_local tables cached;
  if (cached.len != len) {
    std::memset(cached.line_index, kPairConstants + (kNewline - kDigits), sizeof cached.line_index);
    if (len >= 2 && len <= kPairMaxLen)
      (void)build_table(cached.line_index + 64, len, 70, kPairSlot, true, kPairConstants);
    if (len < kWideMinLen)
      cached.block_vectors = build_table(cached.block, len, 30, 32, false);  // write_blocks' lengths
    if (len >= kWideMinLen) build_wide_tables(cached.wide, cached.decade, len);
    cached.len = len;
  }
  if (len >= kWideMinLen) {
    return dispatch_count((16 * (len + 1) + 94) / 64, std::make_index_sequence<kWideMaxWhole>{}, [&](auto w) {
      return write_wide<decltype(w)::value>(out, prefix, len, cached.wide + 64, cached.decade + 64, blocks);
    });
  }
  std::uint8_t const* const line_index = cached.line_index;
  if (len >= 2 && len <= kPairMaxLen && blocks >= 2) {
    std::size_t const vectors = (2 * (16 * (len + 1) + 94) + 63) / 64;
    alignas(16) std::uint8_t digits[16];
    std::memcpy(digits, prefix, len);
    out = dispatch_count(vectors, std::make_index_sequence<kPairMaxVectors>{}, [&](auto v) {
      return len >= kAlignedMinLen
                 ? write_pairs<decltype(v)::value, true>(out, digits, len, line_index + 64, blocks / 2)
                 : write_pairs<decltype(v)::value, false>(out, digits, len, line_index + 64, blocks / 2);
    });
    std::memcpy(prefix, digits, len);
    blocks %= 2;
    if (blocks == 0) return out;
  }
  std::uint8_t const* const table = cached.block;
  std::size_t const vectors = cached.block_vectors;

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
    out = dispatch_count(vectors, std::make_index_sequence<kMaxVectors>{},
                         [&](auto v) { return write_blocks<decltype(v)::value>(out, p0, one, len, table, blocks); });
  }
  _mm256_store_si256(reinterpret_cast<__m256i*>(bytes), p0);
  std::memcpy(prefix, bytes, len);
  return out;
}

}  // namespace fizzgen
