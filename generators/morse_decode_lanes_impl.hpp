#pragma once
// The Morse decoder kernel for 16- and 32-byte vectors, as one algorithm over a lane type L that a
// per-arch translation unit supplies (generators/simd/morse_decode_{avx2,sse4_2}.cpp). Everything
// here is a template or has internal linkage, so no inline function compiled for one instruction
// set can be picked by the linker for another.
//
// A block is W input bytes, each looked at as the start of a group. Two class bytes per input
// byte: c ('.' 0, '-' 1, separator 1, anything else 0xff) and s (separator 1, else 0xff). From
// k = 7 down to 0, with the classes of byte q + k (alignr of this block and the next),
//     acc = min(adds(acc, acc) | c, s)
// starting from 0xff: a separator resets acc to 1 (the empty group), a symbol shifts it left and
// ORs in its dash, and a byte that is no symbol, or no separator within 8 bytes, leaves 0xff,
// which saturating doubling keeps. So acc is (1 << len) | dashes for a group of 1..7 symbols and
// 0xff (no code) for anything else, with no step per group and no branch on the data. The group
// starts (a non-separator after a separator) and the '\n' '\t' '\r' bytes are kept and squeezed
// together 8 bytes at a time through a shuffle table.

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
  typename L::reg c;     ///< '.' 0, '-' 1, separator 1, else 0xff: what a byte ORs into acc
  typename L::reg s;     ///< separator 1, else 0xff: what acc is clamped to
  typename L::reg pass;  ///< 0xff on '\n' '\t' '\r'
};

template <class L>
class lane_decoder {
  using reg = typename L::reg;
  static constexpr std::size_t kWidth = L::kWidth;

 public:
  explicit lane_decoder(lane_decode_tables const& t) noexcept : t_(t) {
    for (std::size_t h = 0; h < kLaneRows; ++h) row_[h] = L::row(t.row[h]);
    for (std::size_t i = 0; i < kLongCodes; ++i) {
      long_index_[i] = splat(t.long_index[i]);
      long_char_[i] = splat(t.long_char[i]);
    }
  }

  /// Decodes n bytes at in to out; bytes written (see morse::decode).
  std::size_t run(char const* in, std::size_t n, char* out) noexcept {
    char* o = out;
    std::size_t pos = 0;
    if (n >= 2 * kWidth) {
      reg x = L::load(in);
      lane_classes<L> cur = classify(x);
      // Each block reads the next one's bytes too (its groups look 7 bytes ahead).
      for (; pos + 2 * kWidth <= n; pos += kWidth) {
        reg const next_x = L::load(in + pos + kWidth);
        lane_classes<L> const next = classify(next_x);
        o = block(x, cur, next, o);
        x = next_x;
        cur = next;
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
    return static_cast<std::size_t>(o - out);
  }

 private:
  static reg splat(int v) noexcept { return L::splat(static_cast<char>(v)); }

  static lane_classes<L> classify(reg x) noexcept {
    reg const ones = splat(0xff), one = splat(1);
    reg const pass = L::or_(L::or_(L::eq(x, splat('\n')), L::eq(x, splat('\t'))), L::eq(x, splat('\r')));
    reg const sep = L::or_(pass, L::eq(x, splat(' ')));
    reg const s = L::or_(L::andnot(sep, ones), one);
    reg const dash_or_other = L::or_(L::andnot(L::eq(x, splat('-')), ones), one);  // '-' 1, else 0xff
    // A separator is neither '.' nor '-', so the min with s gives it 1.
    reg const c = L::min_u8(L::andnot(L::eq(x, splat('.')), dash_or_other), s);
    return {c, s, pass};
  }

  /// One step of the recurrence, with the classes of byte q + k.
  static reg step(reg acc, reg c, reg s) noexcept { return L::min_u8(L::or_(L::adds_u8(acc, acc), c), s); }

  /// The character of each packed index: 8 vpshufb rows, an index outside a row's 16 made to read
  /// as 0 (bit 7 set) by a wrapping subtraction and a saturating addition; the codes of 7 symbols
  /// by comparison; every other index from 0x80 up (0xff among them) is no code.
  reg characters(reg acc) const noexcept {
    reg const bias = splat(0x70), sixteen = splat(16);
    reg index = acc;  // acc - 16h for row h
    reg chars = L::shuffle(row_[0], L::adds_u8(index, bias));
    for (std::size_t h = 1; h < kLaneRows; ++h) {
      index = L::sub_u8(index, sixteen);
      chars = L::or_(chars, L::shuffle(row_[h], L::adds_u8(index, bias)));
    }
    chars = L::blend(chars, splat(kUnknownMarker), acc);
    for (std::size_t i = 0; i < kLongCodes; ++i) chars = L::blend(chars, long_char_[i], L::eq(acc, long_index_[i]));
    return chars;
  }

  /// Decodes the groups that start in the block x (classes cur, the next block's next) and its
  /// '\n' '\t' '\r' bytes to o; returns the new end.
  char* block(reg x, lane_classes<L> const& cur, lane_classes<L> const& next, char* o) noexcept {
    reg const jc = L::join(cur.c, next.c), js = L::join(cur.s, next.s);
    reg acc = splat(0xff);  // byte q + 8 and on: a group that reaches it is too long
    acc = step(acc, L::template ahead<7>(cur.c, jc), L::template ahead<7>(cur.s, js));
    acc = step(acc, L::template ahead<6>(cur.c, jc), L::template ahead<6>(cur.s, js));
    acc = step(acc, L::template ahead<5>(cur.c, jc), L::template ahead<5>(cur.s, js));
    acc = step(acc, L::template ahead<4>(cur.c, jc), L::template ahead<4>(cur.s, js));
    acc = step(acc, L::template ahead<3>(cur.c, jc), L::template ahead<3>(cur.s, js));
    acc = step(acc, L::template ahead<2>(cur.c, jc), L::template ahead<2>(cur.s, js));
    reg const s1 = L::template ahead<1>(cur.s, js);
    acc = step(acc, L::template ahead<1>(cur.c, jc), s1);
    acc = step(acc, cur.c, cur.s);
    // The group "/" alone is a word gap: a '/' followed by a separator (kept only at a start).
    reg const gap = L::and_(L::eq(x, splat('/')), L::eq(s1, splat(1)));
    reg const out = L::blend(L::blend(characters(acc), splat(' '), gap), x, cur.pass);
    // s has bit 7 set exactly on non-separators; a group starts at one after a separator (the
    // input's start counts as one).
    std::uint32_t const word = L::bits(cur.s);
    std::uint32_t const starts = word & ~((word << 1) | carry_);
    carry_ = word >> (kWidth - 1);
    return L::compact(out, starts | L::bits(cur.pass), t_, o);
  }

  lane_decode_tables const& t_;
  reg row_[kLaneRows];
  reg long_index_[kLongCodes], long_char_[kLongCodes];
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
