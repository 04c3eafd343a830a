#pragma once
// The Morse decoder kernel for 16- and 32-byte vectors, as one algorithm over a lane type L that a
// per-arch translation unit supplies (generators/simd/morse_decode_{avx2,sse4_2}.cpp). Everything
// here is a template or has internal linkage, so no inline function compiled for one instruction
// set can be picked by the linker for another.
//
// A block is W input bytes, each looked at as the start of a group. Each input byte has a class
// v: '.' 0x00, '-' 0x01, separator 0x81, anything else 0x7f. From k = 7 down to 0, with the class
// of byte q + k (vpalignr of this block and the next),
//     acc = bit 7 of v ? 1 : adds(acc, acc) | v
// starting from 0xff: a separator resets acc to 1 (the empty group), a symbol shifts it left and
// ORs in its dash. A byte that is no symbol ORs in 0x7f, after which the next saturating doubling
// gives 0xfe or more for good; a byte q that is no symbol leaves 0x7f or 0xff; a run of 8 bytes
// without a separator keeps the 0xff it started from. So acc is (1 << len) | dashes for a group of
// 1..7 symbols, and for anything else an index that is no code (0x7f is "------"), with no step
// per group and no branch on the data. The group starts (a non-separator after a separator) and
// the '\n' '\t' '\r' bytes are kept as tokens (the index, or a literal character with bit 7 set)
// squeezed together 8 bytes at a time through a shuffle table, and a second pass a stripe behind
// turns the tokens into characters in place: the lookup runs on the output, about a quarter of
// the input on the encoder's Morse.

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "generators/morse_decode_lanes.hpp"
#include "generators/morse_table.hpp"

namespace fizzgen::morse {
namespace {

/// The classes of one block of input bytes.
template <class L>
struct lane_classes {
  typename L::reg v;     ///< '.' 0x00, '-' 0x01, separator 0x81, else 0x7f
  typename L::reg pass;  ///< 0xff on '\n' '\t' '\r'
};

/// The nibble tables of the classifier: bit 0 ' ', bit 1 '\t' '\n' '\r', bit 2 '.', bit 3 '-'
/// where both the low and the high nibble's entries have it; then the class of each bit.
inline constexpr std::uint8_t kLowNibble[16] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0, 0, 2 | 8, 4, 0};
inline constexpr std::uint8_t kHighNibble[16] = {2, 0, 1 | 4 | 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
inline constexpr std::uint8_t kClassOfBits[16] = {0x7f, 0x81, 0x81, 0, 0x00, 0, 0, 0, 0x01, 0, 0, 0, 0, 0, 0, 0};
inline constexpr std::uint8_t kPassBit = 2;

/// A token of the first pass with bit 7 set stands for the character in its low 7 bits.
inline constexpr int kLiteral = 0x80;

template <class L>
class lane_decoder {
  using reg = typename L::reg;
  static constexpr std::size_t kWidth = L::kWidth;
  /// Blocks of input between two runs of the second pass.
  static constexpr std::size_t kStripeBlocks = 512 / kWidth;
  /// Tokens the second pass leaves for later, so that its loads do not span squeezing stores
  /// still pending (such a load is not forwarded); lags of 0 and 256 measured the same here.
  static constexpr std::ptrdiff_t kLag = 128;

 public:
  explicit lane_decoder(lane_decode_tables const& t) noexcept
      : t_(t), low_(L::row(kLowNibble)), high_(L::row(kHighNibble)), class_of_(L::row(kClassOfBits)) {
    for (std::size_t h = 0; h < kLaneRows; ++h) row_[h] = L::row(t.row[h]);
  }

  /// Decodes n bytes at in to out; bytes written (see morse::decode).
  std::size_t run(char const* in, std::size_t n, char* out) noexcept {
    char* o = out;
    char* done = out;  // the tokens before it are characters already
    std::size_t pos = 0;
    if (n >= 2 * kWidth) {
      reg x = L::load(in);
      lane_classes<L> cur = classify(x);
      // Each block reads the next one's bytes too (its groups look 7 bytes ahead).
      while (pos + 2 * kWidth <= n) {
        for (std::size_t b = 0; b < kStripeBlocks && pos + 2 * kWidth <= n; ++b, pos += kWidth) {
          reg const next_x = L::load(in + pos + kWidth);
          lane_classes<L> const next = classify(next_x);
          o = block(x, cur, next, o);
          x = next_x;
          cur = next;
        }
        for (; o - done >= kLag + static_cast<std::ptrdiff_t>(kWidth); done += kWidth) translate(done);
      }
    }
    // The last bytes (fewer than two blocks) from a copy padded with spaces: a space closes the
    // stream's last group and writes nothing, so the padding changes no output and nothing past
    // the input is read.
    alignas(64) char tail[3 * kWidth];
    std::memset(tail, ' ', sizeof tail);
    if (pos < n) std::memcpy(tail, in + pos, n - pos);
    for (std::size_t at = 0; at < n - pos; at += kWidth) {
      reg const x = L::load(tail + at);
      o = block(x, classify(x), classify(L::load(tail + at + kWidth)), o);
    }
    // The last vector may reach past o, into the slack (garbage in, garbage out).
    for (; done < o; done += kWidth) translate(done);
    return static_cast<std::size_t>(o - out);
  }

 private:
  static reg splat(int v) noexcept { return L::splat(static_cast<char>(v)); }

  /// The classes of x: vpshufb on both nibbles (a byte from 0x80 up reads 0 from the low
  /// table, so it is "anything else").
  lane_classes<L> classify(reg x) const noexcept {
    reg const bits = L::and_(L::shuffle(low_, x), L::shuffle(high_, L::high_nibbles(x)));
    return {L::shuffle(class_of_, bits), L::eq(bits, splat(kPassBit))};
  }

  /// One step of the recurrence, with the class of byte q + k.
  static reg step(reg acc, reg v) noexcept { return L::blend(L::or_(L::adds_u8(acc, acc), v), splat(1), v); }

  /// The first pass's token for each packed index: the index itself below 128 (the second pass
  /// looks it up), a literal from 128 up: the codes of 7 symbols by comparison, else no code.
  reg tokens(reg acc) const noexcept {
    reg high = splat(kLiteral | kUnknownMarker);
    for (std::size_t i = 0; i < kLongCodes; ++i)
      high = L::blend(high, splat(kLiteral | t_.long_char[i]), L::eq(acc, splat(t_.long_index[i])));
    return L::blend(acc, high, acc);
  }

  /// The second pass on the W tokens at p, in place: vpshufb of all 8 rows with the token (below
  /// 128 its low nibble picks the byte), the row chosen by bits 4, 5, 6 through three levels of
  /// blends; a literal gives its low 7 bits.
  void translate(char* p) const noexcept {
    reg const token = L::load(p);
    reg q[kLaneRows];
    for (std::size_t h = 0; h < kLaneRows; ++h) q[h] = L::shuffle(row_[h], token);
    reg const bit4 = L::template shift_left<3>(token), bit5 = L::template shift_left<2>(token);
    reg const bit6 = L::template shift_left<1>(token);  // each at bit 7 of its byte, where blend looks
    reg const r03 = L::blend(L::blend(q[0], q[1], bit4), L::blend(q[2], q[3], bit4), bit5);
    reg const r47 = L::blend(L::blend(q[4], q[5], bit4), L::blend(q[6], q[7], bit4), bit5);
    L::store(p, L::blend(L::blend(r03, r47, bit6), L::and_(token, splat(0x7f)), token));
  }

  /// Writes the tokens of the groups that start in the block x (classes cur, the next block's
  /// next) and of its '\n' '\t' '\r' bytes to o; returns the new end.
  char* block(reg x, lane_classes<L> const& cur, lane_classes<L> const& next, char* o) noexcept {
    reg const joined = L::join(cur.v, next.v);
    // From 0xff, the first step gives 1 on a separator and keeps 0xff elsewhere.
    reg acc = L::blend(splat(0xff), splat(1), L::template ahead<7>(cur.v, joined));
    acc = step(acc, L::template ahead<6>(cur.v, joined));
    acc = step(acc, L::template ahead<5>(cur.v, joined));
    acc = step(acc, L::template ahead<4>(cur.v, joined));
    acc = step(acc, L::template ahead<3>(cur.v, joined));
    acc = step(acc, L::template ahead<2>(cur.v, joined));
    reg const v1 = L::template ahead<1>(cur.v, joined);
    acc = step(acc, v1);
    acc = step(acc, cur.v);
    // The group "/" alone is a word gap: a '/' followed by a separator (kept only at a start).
    reg const gap = L::and_(L::eq(x, splat('/')), v1);
    reg const literal_x = L::or_(x, splat(kLiteral));
    reg const out = L::blend(L::blend(tokens(acc), splat(kLiteral | ' '), gap), literal_x, cur.pass);
    // A group starts at a non-separator after a separator (the input's start counts as one).
    std::uint32_t const word = ~L::bits(cur.v) & kAll;
    std::uint32_t const starts = word & ~((word << 1) | carry_);
    carry_ = word >> (kWidth - 1);
    return L::compact(out, starts | L::bits(cur.pass), t_, o);
  }

  static constexpr std::uint32_t kAll = static_cast<std::uint32_t>((std::uint64_t{1} << kWidth) - 1);

  lane_decode_tables const& t_;
  reg low_, high_, class_of_;  ///< the classifier's tables
  reg row_[kLaneRows];
  std::uint32_t carry_ = 0;  ///< 1 when the byte before the block is no separator
};

/// The decoder kernel for lane type L.
template <class L>
std::size_t decode_lanes(char const* in, std::size_t n, char* out) noexcept {
  lane_decoder<L> d(lane_tables());
  return d.run(in, n, out);
}

}  // namespace
}  // namespace fizzgen::morse
