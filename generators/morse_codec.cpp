#include "generators/morse_codec.hpp"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "generators/arch.hpp"
#include "generators/morse_decode_kernel.hpp"
#include "generators/morse_encode_kernel.hpp"
#include "generators/morse_table.hpp"

namespace fizzgen::morse {
namespace {

// ---- encoding ---------------------------------------------------------------------------------

constexpr std::uint8_t kSlow = 0x80;  // len flag: a pass byte, or a code too long for one store

/// Per byte: its code and space as one 8-byte word, and how many of those bytes count. One load
/// and one unconditional 8-byte store per input byte; the next store overwrites the excess.
struct encode_tables {
  std::array<std::uint64_t, 256> word{};
  std::array<std::uint8_t, 256> len{};
};

encode_tables make_encode_tables() noexcept {
  encode_tables t;
  for (unsigned b = 0; b < 256; ++b) {
    auto const c = static_cast<unsigned char>(b);
    std::string_view const code = code_of(c);
    if (kind_of(c) == byte_kind::pass || code.size() + 1 > sizeof(std::uint64_t)) {
      t.len[b] = kSlow;
      continue;
    }
    if (code.empty()) continue;  // dropped: length 0, the store is overwritten by the next one
    char bytes[8] = {' ', ' ', ' ', ' ', ' ', ' ', ' ', ' '};
    std::memcpy(bytes, code.data(), code.size());
    std::memcpy(&t.word[b], bytes, 8);
    t.len[b] = static_cast<std::uint8_t>(code.size() + 1);
  }
  return t;
}

encode_tables const& enc() noexcept {
  static encode_tables const t = make_encode_tables();
  return t;
}

encode_slot_tables make_slot_tables() noexcept {
  encode_slot_tables t{};
  for (unsigned b = 0; b < 128; ++b) {
    auto const c = static_cast<unsigned char>(b);
    std::uint8_t plane[4] = {};
    auto put = [&plane](unsigned j, char byte) {
      for (unsigned p = 0; p < 4; ++p) plane[p] |= static_cast<std::uint8_t>(((slot_class(byte) >> p) & 1u) << j);
    };
    std::string_view const code = code_of(c);
    if (kind_of(c) == byte_kind::pass) {
      put(0, static_cast<char>(c));
    } else if (!code.empty() && c != kUnslotted) {
      for (std::size_t j = 0; j < code.size(); ++j) put(static_cast<unsigned>(j), code[j]);  // '&' is ". ..."
      put(static_cast<unsigned>(code.size()), ' ');
    }
    t.plane[0][b] = plane[0];
    t.plane[1][b] = plane[1];
    t.used[b] = static_cast<std::uint8_t>(plane[0] | plane[1] | plane[2] | plane[3]);
    t.low[b] = static_cast<std::uint8_t>(plane[2] | plane[3] << 1 | (c == '\r' ? kCrMark : 0));
    // What the kernel relies on: the used bytes are a prefix; planes 2 and 3 are set at slot
    // byte 0 only; where plane 3 is, slot byte 1 is not used (`low` itself serves as plane 2,
    // its bit 1 there); a '\r' uses slot bytes 0 to 5 only (the mark shifted into plane 3).
    if ((t.used[b] & (t.used[b] + 1u)) != 0 || ((plane[2] | plane[3]) & ~1u) != 0 ||
        (plane[3] != 0 && (t.used[b] & 2u) != 0) || (c == '\r' && t.used[b] > 0x3f))
      std::abort();
  }
  return t;
}

// ---- decoding ---------------------------------------------------------------------------------

/// Bit i of each mask describes byte i of a block of up to 64 bytes.
struct block_masks {
  std::uint64_t sep = 0;    ///< ' ', '\n', '\t', '\r': ends a group
  std::uint64_t pass = 0;   ///< '\n', '\t', '\r': also written out
  std::uint64_t sym = 0;    ///< '.' or '-'
  std::uint64_t dash = 0;   ///< '-'
  std::uint64_t slash = 0;  ///< '/'
};

/// Masks of the `count` bytes at s put at bits [first, first + count) (<= 64), a byte at a time;
/// the other bits stay clear.
block_masks masks_scalar(unsigned char const* s, std::size_t count, unsigned first) noexcept {
  block_masks m;
  for (std::size_t i = 0; i < count; ++i) {
    std::uint64_t const bit = std::uint64_t{1} << (first + i);
    unsigned char const c = s[i];
    bool const pass = c == '\n' || c == '\t' || c == '\r';
    m.sep |= (pass || c == ' ') ? bit : 0;
    m.pass |= pass ? bit : 0;
    m.sym |= (c == '.' || c == '-') ? bit : 0;
    m.dash |= c == '-' ? bit : 0;
    m.slash |= c == '/' ? bit : 0;
  }
  return m;
}

/// Masks of 64 bytes.
block_masks masks64(unsigned char const* s) noexcept {
#if defined(__SSE2__)
  // SSE2 is part of x86-64, so this needs no run-time dispatch: 16 bytes per compare.
  block_masks m;
  for (int k = 0; k < 4; ++k) {
    __m128i const v = _mm_loadu_si128(reinterpret_cast<__m128i const*>(s + 16 * k));
    auto eq = [&](char c) { return _mm_cmpeq_epi8(v, _mm_set1_epi8(c)); };
    __m128i const pass = _mm_or_si128(_mm_or_si128(eq('\n'), eq('\t')), eq('\r'));
    __m128i const dash = eq('-');
    auto bits = [&](__m128i x) {
      return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(x))) << (16 * k);
    };
    m.sep |= bits(_mm_or_si128(pass, eq(' ')));
    m.pass |= bits(pass);
    m.sym |= bits(_mm_or_si128(dash, eq('.')));
    m.dash |= bits(dash);
    m.slash |= bits(eq('/'));
  }
  return m;
#else
  return masks_scalar(s, 64, 0);
#endif
}

/// Decoded character by index: 0 unknown, 1 the group "/", (1 << len) | dashes for a group of
/// len <= 7 symbols, 256 and up a group of 8 or more symbols (unknown).
std::array<char, 512> make_decode_table() noexcept {
  std::array<char, 512> t;
  t.fill(kUnknownMarker);
  t[1] = ' ';
  for (unsigned i = 2; i < 256; ++i) t[i] = decode_packed(i);
  return t;
}

std::array<char, 512> const& dec() noexcept {
  static std::array<char, 512> const t = make_decode_table();
  return t;
}

decode_kernel_tables make_decode_kernel_tables() noexcept {
  decode_kernel_tables t{};
  for (unsigned b = 0; b < 128; ++b) {
    auto const c = static_cast<char>(b);
    bool const pass = c == '\n' || c == '\t' || c == '\r';
    t.byte_class[b] = static_cast<std::uint8_t>((pass || c == ' ' ? kClassSep : 0) | (pass ? kClassPass : 0) |
                                                (c == '.' || c == '-' ? kClassSym : 0) | (c == '-' ? kClassDash : 0) |
                                                (c == '/' ? kClassSlash : 0));
  }
  for (unsigned i = 0; i < 256; ++i) t.packed[i] = i < 2 ? kUnknownMarker : decode_packed(i);
  return t;
}

/// The character of the group of `len` bytes ending just before bit `end` of m (end >= 8). A
/// group of eight or more bytes is never a code, so its last eight bytes are enough to say so.
inline char group_char(block_masks const& m, std::uint64_t len, unsigned end,
                       std::array<char, 512> const& table) noexcept {
  unsigned const n = len < 8 ? static_cast<unsigned>(len) : 8;
  unsigned const at = end - n;
  unsigned const all = (1u << n) - 1;
  auto const syms = static_cast<unsigned>(m.sym >> at) & all;
  auto const dashes = static_cast<unsigned>(m.dash >> at) & all;
  auto const is_slash = static_cast<unsigned>(m.slash >> at) & 1u;
  unsigned const index = syms == all ? (1u << n) | dashes : (n == 1 ? is_slash : 0u);
  return table[index];
}

/// Decodes the groups that end at the separators in bits 8..63 of the window m, whose bit 0 is
/// input byte `origin`; returns the new end of the output. Masks come by value: in registers.
inline char* decode_window(block_masks const m, std::uint64_t const origin, unsigned char const* s, char* o,
                           std::uint64_t& next_group, std::array<char, 512> const& table) noexcept {
  std::uint64_t next = next_group;
  // One step per separator, none per symbol: a code group costs what its separator costs.
  for (std::uint64_t seps = m.sep & ~std::uint64_t{0xff}; seps != 0; seps &= seps - 1) {
    auto const bit = static_cast<unsigned>(__builtin_ctzll(seps));
    std::uint64_t const at = origin + bit;
    std::uint64_t const len = at - next;
    // Both loads before the stores: out may alias in as far as the compiler knows.
    char const sep = static_cast<char>(s[at]);
    char const decoded = group_char(m, len, bit, table);
    *o = decoded;  // written always, kept only when there was a group
    o += len != 0;
    *o = sep;
    o += (m.pass >> bit) & 1;
    next = at + 1;
  }
  next_group = next;
  return o;
}

}  // namespace

decode_kernel_tables const& decode_tables() noexcept {
  static decode_kernel_tables const t = make_decode_kernel_tables();
  return t;
}

encode_slot_tables const& slot_tables() noexcept {
  static encode_slot_tables const t = make_slot_tables();
  return t;
}

char* encode_bytes_scalar(unsigned char const* s, std::size_t n, char const* begin, char* p) noexcept {
  encode_tables const& t = enc();
  for (std::size_t i = 0; i < n; ++i) {
    unsigned const b = s[i];
    if ((t.len[b] & kSlow) == 0) {
      std::memcpy(p, &t.word[b], 8);
      p += t.len[b];
    } else if (kind_of(static_cast<unsigned char>(b)) == byte_kind::pass) {
      // Every code ends in a space and no pass byte is one, so a space just before p is exactly
      // "the one space written just before" this byte.
      if (p != begin && p[-1] == ' ') --p;
      *p++ = static_cast<char>(b);
    } else {
      std::string_view const code = code_of(static_cast<unsigned char>(b));
      std::memcpy(p, code.data(), code.size());
      p[code.size()] = ' ';
      p += code.size() + 1;
    }
  }
  return p;
}

std::size_t encode_eager(std::span<char const> in, char* out, kernel_arch const& arch) noexcept {
  if (arch.morse_encode == nullptr) return encode_eager(in, out);
  return arch.morse_encode(in.data(), in.size(), out);
}

std::size_t encode_eager(std::span<char const> in, char* out) noexcept {
  encode_tables const& t = enc();
  auto const* s = reinterpret_cast<unsigned char const*>(in.data());
  std::size_t const n = in.size();
  char* p = out;
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    // Everything is loaded before the first store: a store through char* may alias any object,
    // so loads placed after it would be redone and wait behind it.
    std::uint32_t in4;
    std::memcpy(&in4, s + i, 4);
    unsigned const b0 = in4 & 0xffu, b1 = (in4 >> 8) & 0xffu, b2 = (in4 >> 16) & 0xffu, b3 = in4 >> 24;
    std::uint64_t const w0 = t.word[b0], w1 = t.word[b1], w2 = t.word[b2], w3 = t.word[b3];
    std::size_t const l0 = t.len[b0], l1 = t.len[b1], l2 = t.len[b2], l3 = t.len[b3];
    if (((l0 | l1 | l2 | l3) & kSlow) != 0) [[unlikely]] {
      p = encode_bytes_scalar(s + i, 4, out, p);
      continue;
    }
    // Offsets as a tree of sums, so the only chain from block to block is one addition.
    std::size_t const l01 = l0 + l1;
    std::memcpy(p, &w0, 8);
    std::memcpy(p + l0, &w1, 8);
    std::memcpy(p + l01, &w2, 8);
    std::memcpy(p + l01 + l2, &w3, 8);
    p += l01 + (l2 + l3);
  }
  p = encode_bytes_scalar(s + i, n - i, out, p);
  return static_cast<std::size_t>(p - out);
}

std::string encode(std::string_view in) { return encode(in, kernel_archs().back()); }

std::string encode(std::string_view in, kernel_arch const& arch) {
  std::string out(encode_bound(in.size()), '\0');
  std::size_t n = encode_eager(in, out.data(), arch);
  if (n > 0 && out[n - 1] == ' ') --n;
  out.resize(n);
  return out;
}

encode_joiner::piece encode_joiner::next(std::span<char const> eager) noexcept {
  if (eager.empty()) return {};  // everything dropped: a held space stays held
  // An eager chunk starting with a pass byte took nothing back itself: it takes the held space.
  piece p{held_ && kind_of(static_cast<unsigned char>(eager.front())) != byte_kind::pass, eager};
  held_ = eager.back() == ' ';
  if (held_) p.body = eager.first(eager.size() - 1);
  return p;
}

std::size_t decode(std::span<char const> in, char* out) noexcept {
  std::array<char, 512> const& table = dec();
  auto const* s = reinterpret_cast<unsigned char const*>(in.data());
  std::size_t const n = in.size();
  char* o = out;
  std::uint64_t next_group = 0;  // where the group after the last separator starts
  // Windows of 64 bytes advance by 56: a window's separators are its last 56 bytes and the 8 bytes
  // before them ride along in the same masks, so every group of up to 8 bytes ending at one of
  // them is one 64-bit shift away. Bit 0 of a window is input byte origin (wrapping below 0).
  constexpr std::size_t kStep = 56, kBack = 8;
  // The first window has nothing before the input: its first 8 bits stay clear.
  std::size_t pos = n < kStep ? n : kStep;
  block_masks m = masks_scalar(s, pos, kBack);
  std::uint64_t origin = std::uint64_t{0} - kBack;
  o = decode_window(m, origin, s, o, next_group, table);
  for (; pos + kStep <= n; pos += kStep) {
    m = masks64(s + pos - kBack);
    origin = pos - kBack;
    o = decode_window(m, origin, s, o, next_group, table);
  }
  if (pos < n) {
    m = masks_scalar(s + pos - kBack, n - pos + kBack, 0);
    origin = pos - kBack;
    o = decode_window(m, origin, s, o, next_group, table);
  }
  // The stream's end closes its last group, which the last window holds (n - origin in 9..64).
  if (n > next_group) *o++ = group_char(m, n - next_group, static_cast<unsigned>(n - origin), table);
  return static_cast<std::size_t>(o - out);
}

std::size_t decode(std::span<char const> in, char* out, kernel_arch const& arch) noexcept {
  if (arch.morse_decode == nullptr) return decode(in, out);
  return arch.morse_decode(in.data(), in.size(), out);
}

std::string decode(std::string_view in) { return decode(in, kernel_archs().back()); }

std::string decode(std::string_view in, kernel_arch const& arch) {
  std::string out(decode_bound(in.size()), '\0');
  out.resize(decode(std::span<char const>(in.data(), in.size()), out.data(), arch));
  return out;
}

}  // namespace fizzgen::morse
