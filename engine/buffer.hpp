#pragma once
// A worker's output buffer: anonymous memory, 2 MiB-aligned and advised for transparent huge
// pages before first touch (THP in madvise mode needs both), so a chunk spans few TLB entries.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

namespace fizzgen {

class buffer {
 public:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;

  /// At least `bytes` bytes, rounded up to whole huge pages. Throws std::bad_alloc.
  explicit buffer(std::size_t bytes);
  ~buffer();
  buffer(buffer&& other) noexcept;
  buffer& operator=(buffer&&) = delete;
  buffer(buffer const&) = delete;

  std::span<std::byte> span() const noexcept { return {data_, size_}; }
  std::byte* data() const noexcept { return data_; }

  /// Gives the huge pages that hold the first `used` bytes (all of them by default) fresh zero
  /// pages: whoever still references the old pages (a pipe after vmsplice) keeps them, so
  /// rewriting the buffer cannot change bytes already handed out. The pages after them (a
  /// generator's scratch at the buffer's end, never handed out) stay, and cost no zeroing.
  bool discard(std::size_t used = SIZE_MAX) noexcept;
  /// Faults in the pages of the first `used` bytes (all by default) with a write of a zero byte to
  /// each 4 KiB page, so that whoever fills them next takes no page fault. Only for a buffer no
  /// other thread reads or writes meanwhile.
  void fault_in(std::size_t used = SIZE_MAX) noexcept;
  /// The bytes from the start that discard(used) gives fresh pages.
  std::size_t discard_extent(std::size_t used) const noexcept {
    return used >= size_ ? size_ : std::min(size_, (used + kHugePage - 1) / kHugePage * kHugePage);
  }
  /// Gives the `bytes` bytes from `offset` (both multiples of 4 KiB) fresh zero pages, as discard().
  bool discard_range(std::size_t offset, std::size_t bytes) noexcept;

 private:
  std::byte* data_ = nullptr;
  std::size_t size_ = 0;
};

/// Where a worker's ring of `count` buffers of `capacity` bytes lies in one mapping. Packed, as many
/// buffers as fit share a huge page and none crosses a huge page's boundary: a refill on fresh
/// pages then replaces the whole huge page (the kernel zeroes it as one page, where a part of it
/// would split it into small pages) and gives every buffer in it fresh pages at once, instead of
/// zeroing a huge page for each buffer (a 512 KiB chunk in a 2 MiB page of its own: 3.4 against
/// 6.3 GiB/s for 2 MiB chunks into `pv | pv`, Xeon). Not packed, each buffer starts a huge page.
struct ring_layout {
  ring_layout(std::size_t capacity, unsigned count, bool pack) noexcept;
  std::size_t offset(unsigned i) const noexcept { return i / per_page * page_stride + i % per_page * stride; }
  std::size_t stride = 0;       ///< between buffers that share a huge page: the capacity in 4 KiB pages
  unsigned per_page = 1;        ///< buffers in each group of huge pages
  std::size_t page_stride = 0;  ///< between those groups
  std::size_t bytes = 0;        ///< the mapping
};

/// A field of /proc/self/smaps_rollup in kB ("AnonHugePages", "FilePmdMapped"), 0 when unknown.
std::size_t rollup_kb(char const* field) noexcept;

/// AnonHugePages of this process in kB, 0 when unknown.
inline std::size_t anon_huge_kb() noexcept { return rollup_kb("AnonHugePages"); }

}  // namespace fizzgen
