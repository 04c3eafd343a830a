#include "engine/buffer.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <utility>

#include "output/sys.hpp"

namespace fizzgen {
namespace {

/// FIZZGEN_POISON=1 (tests): buffers start, and restart after every discard, full of a byte no
/// stream contains, so any byte a generator failed to write would show in the output.
constexpr unsigned char kPoison = 0x01;
bool poison_enabled() noexcept {
  static bool const enabled = [] {
    char const* v = std::getenv("FIZZGEN_POISON");
    return v != nullptr && v[0] == '1';
  }();
  return enabled;
}

}  // namespace

buffer::buffer(std::size_t bytes) {
  size_ = (bytes + kHugePage - 1) / kHugePage * kHugePage;
  // Over-map by one huge page and trim, so the range starts on a 2 MiB boundary.
  std::size_t const mapped = size_ + kHugePage;
  void* raw = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (raw == MAP_FAILED) throw std::bad_alloc();
  auto const addr = reinterpret_cast<std::uintptr_t>(raw);
  auto const aligned = (addr + kHugePage - 1) / kHugePage * kHugePage;
  if (aligned > addr) ::munmap(raw, aligned - addr);
  if (std::size_t const tail = addr + mapped - (aligned + size_); tail > 0)
    ::munmap(reinterpret_cast<void*>(aligned + size_), tail);
  data_ = reinterpret_cast<std::byte*>(aligned);
  sys::madvise(data_, size_, MADV_HUGEPAGE);  // advisory: without THP we still run, on 4 KiB pages
  if (poison_enabled()) std::memset(data_, kPoison, size_);
}

buffer::~buffer() {
  if (data_ != nullptr) ::munmap(data_, size_);
}

buffer::buffer(buffer&& other) noexcept
    : data_(std::exchange(other.data_, nullptr)), size_(std::exchange(other.size_, 0)) {}

std::size_t rollup_kb(char const* field) noexcept {
  std::FILE* f = std::fopen("/proc/self/smaps_rollup", "r");
  if (f == nullptr) return 0;
  char line[256];
  std::size_t kb = 0;
  std::size_t const n = std::strlen(field);
  while (std::fgets(line, sizeof line, f) != nullptr)
    if (std::strncmp(line, field, n) == 0 && line[n] == ':' && std::sscanf(line + n + 1, " %zu kB", &kb) == 1) break;
  std::fclose(f);
  return kb;
}

bool buffer::discard(std::size_t used) noexcept { return discard_range(0, discard_extent(used)); }

bool buffer::discard_range(std::size_t offset, std::size_t bytes) noexcept {
  if (offset >= size_) return true;
  std::size_t const n = std::min(bytes, size_ - offset);
  bool const ok = sys::madvise(data_ + offset, n, MADV_DONTNEED) == 0;
  if (poison_enabled()) std::memset(data_ + offset, kPoison, n);
  return ok;
}

ring_layout::ring_layout(std::size_t capacity, unsigned count, bool pack) noexcept {
  constexpr std::size_t kPage = 4096;
  stride = (std::max<std::size_t>(capacity, 1) + kPage - 1) / kPage * kPage;
  page_stride = (stride + buffer::kHugePage - 1) / buffer::kHugePage * buffer::kHugePage;
  per_page = pack ? static_cast<unsigned>(page_stride / stride) : 1;
  count = std::max(count, 1u);
  bytes = offset(count - 1) + stride;
}

void buffer::fault_in(std::size_t used) noexcept {
  std::size_t const n = std::min(used, size_);
  for (std::size_t at = 0; at < n; at += 4096) data_[at] = std::byte{0};
}

}  // namespace fizzgen
