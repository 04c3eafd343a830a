#pragma once
// The permuting template kernel: custom-rules lines written from a width's permute_plan
// (generators/rule_template.hpp), a few lines per vector store as the classic kernel writes them.
// Included only by the per-arch translation units, which supply the lane writer; everything here
// is templated on Arch or has internal linkage, so no inline function compiled for one
// instruction set can be picked by the linker for another.

#include <xsimd/xsimd.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include "generators/rule_template.hpp"

namespace fizzgen {
namespace {

/// The packed prefixes of a block, group after group: prefix g of the call is the first line's
/// prefix plus g, kept as high | low[t] (t its last two digits, high the rest), so that within a
/// hundred a group costs one OR and one store per vector, and only the hundredth carries.
template <class Arch>
class packed_prefixes {
  using batch = xsimd::batch<std::uint8_t, Arch>;
  static constexpr std::size_t kSize = batch::size;
  static constexpr std::size_t kMax = 64 / kSize;  ///< vectors per prefix of up to 63 bytes

 public:
  /// The prefix of `number` (its width - 1 <= 62 leading digits); the two-digit table in `low`
  /// (100 * 64 bytes, 64-aligned).
  packed_prefixes(char const* number, std::size_t len, std::uint8_t* low) noexcept
      : len_(len), vectors_((len + kSize - 1) / kSize), low_(low) {
    std::memcpy(digits_, number, len);
    std::size_t const tail = std::min<std::size_t>(len, 2);  // digits that come from the table
    for (unsigned v = 0; v < 100; ++v) {
      std::uint8_t* const b = low_ + v * 64;
      std::memset(b, 0, 64);
      if (tail == 2) b[len - 2] = static_cast<std::uint8_t>('0' + v / 10);
      b[len - 1] = static_cast<std::uint8_t>('0' + v % 10);
    }
    last_ = tail == 2 ? (digits_[len - 2] - '0') * 10u + (digits_[len - 1] - '0') : digits_[len - 1] - '0';
    limit_ = tail == 2 ? 100 : 10;
    std::memset(digits_ + len - tail, 0, tail);
    load_high();
  }

  /// Writes the current prefix at `p` (up to 64 bytes: the zeros after it are the next one's to
  /// overwrite) and moves on to the next.
  void store_and_advance(std::uint8_t* p) noexcept {
    std::uint8_t const* const low = low_ + last_ * 64;
    (high_[0] | batch::load_aligned(low)).store_unaligned(p);
    for (std::size_t k = 1; k < vectors_; ++k)  // prefixes of over kSize digits
      (high_[k] | batch::load_aligned(low + k * kSize)).store_unaligned(p + k * kSize);
    if (++last_ == limit_) [[unlikely]]
      carry();
  }

 private:
  void load_high() noexcept {
    for (std::size_t k = 0; k < vectors_; ++k) high_[k] = batch::load_aligned(digits_ + k * kSize);
  }
  /// last two digits 99 -> 00 and one more in the digits before them. Past the width's last
  /// number nothing is read again, so a prefix of nines just stays.
  void carry() noexcept {
    last_ = 0;
    std::size_t i = len_ >= 2 ? len_ - 2 : 0;
    while (i > 0 && digits_[i - 1] == '9') digits_[--i] = '0';
    if (i > 0) ++digits_[i - 1];
    load_high();
  }

  std::size_t len_, vectors_;
  std::uint8_t* low_;
  unsigned last_ = 0, limit_ = 100;
  alignas(64) std::uint8_t digits_[64] = {};  ///< the prefix with its last two digits zeroed
  batch high_[kMax];
};

}  // namespace

/// Writes `lines` lines from the number whose width >= 2 digits are at `number`, which is `phase`
/// mod t.block_lines, with `plan` (made for this width and Writer's lanes): the prefixes of a
/// batch of blocks (rule_template::kPermutePacked bytes, or one block) packed into scratch with
/// Arch's vectors, then the batch's vectors one Writer store after another; so many stores back,
/// the prefix stores have left the store queue, where a window load spanning several of them
/// would wait for them (one block at a time, 3:Fizz 5:Buzz 7:Bazz ran at 35 GB/s). Writer:
/// `kBytes` (a store's bytes, lanes of plan.lane_bytes) and write(dst, packed, vector), holding
/// the plan's arrays as plain pointers (a copy here, so that no store can alias them and they stay
/// in registers). Stores up to kBytes past the returned end; `scratch` holds t.scratch_bytes
/// bytes, 64-aligned.
template <class Arch, class Writer>
char* permute_lines(Writer const writer, char* out, rule_template const& t, permute_plan const& plan,
                    char const* number, std::size_t width, std::uint64_t phase, std::uint64_t lines,
                    std::byte* scratch) noexcept {
  constexpr std::size_t kBytes = Writer::kBytes;
  std::size_t const len = width - 1;
  std::uint64_t const q = t.block_lines;
  std::size_t const block_packed = q / 10 * len;  // packed bytes of a block's prefixes
  std::uint64_t const batch = std::max<std::size_t>(1, rule_template::kPermutePacked / block_packed);
  auto* const low = reinterpret_cast<std::uint8_t*>(scratch);
  std::uint8_t* const packed = low + 100 * 64;
  packed_prefixes<Arch> prefixes(number, len, low);
  std::uint32_t const* const offset = plan.line_offset.data();
  auto* o = reinterpret_cast<std::uint8_t*>(out);
  std::uint64_t j = phase;
  for (std::uint64_t left = lines; left > 0;) {
    // The batch: up to `batch` stretches of blocks, the first from phase j, the last maybe cut.
    // Only the groups with lines to write are packed: a prefix past the width's last number
    // never exists.
    std::uint64_t n = 0, at = j;
    for (std::uint64_t line = 0; n < batch && line < left; ++n, at = 0) {
      std::uint64_t const end = at + std::min(left - line, q - at);
      std::uint8_t* const block = packed + n * block_packed;
      for (std::uint64_t g = at / 10; g <= (end - 1) / 10; ++g) prefixes.store_and_advance(block + g * len);
      line += end - at;
    }
    for (std::uint64_t b = 0; b < n; ++b) {
      std::uint64_t const end = j + std::min(left, q - j);
      std::uint8_t const* const block = packed + b * block_packed;
      std::size_t const start = offset[j], stop = offset[end];
      std::size_t v = start / kBytes;  // vector v of the block goes to o + v * kBytes - start
      if (std::size_t const skip = start % kBytes; skip != 0) {
        // The first vector begins before `out`: written aside, and only its bytes from `out` on.
        alignas(64) std::uint8_t first[kBytes];
        writer.write(first, block, v);
        std::memcpy(o, first + skip, kBytes - skip);
        ++v;
      }
      for (std::size_t const last = (stop + kBytes - 1) / kBytes; v < last; ++v)
        writer.write(o + (v * kBytes - start), block, v);
      o += stop - start;
      left -= end - j;
      j = end == q ? 0 : end;
    }
  }
  return reinterpret_cast<char*>(o);
}

}  // namespace fizzgen
