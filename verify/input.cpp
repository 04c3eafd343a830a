#include "verify/input.hpp"

#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>

#include "output/sys.hpp"

namespace fizzgen::check {
namespace {

struct input_state {
  input_plan plan;
  std::unique_ptr<char[]> kept;  ///< a read's bytes beyond what its caller wanted
  std::size_t kept_capacity = 0, kept_at = 0, kept_end = 0;
};

input_state& state() {
  static input_state s;
  return s;
}

}  // namespace

void plan_input(input_plan plan) {
  input_state& s = state();
  s.plan = std::move(plan);
  s.kept_at = s.kept_end = 0;
}

ssize_t read_input(int fd, char* data, std::size_t want) {
  input_state& s = state();
  if (want == 0) return 0;
  if (s.kept_at < s.kept_end) {  // bytes of an earlier read(2): no call now
    std::size_t const n = std::min(want, s.kept_end - s.kept_at);
    std::memcpy(data, s.kept.get() + s.kept_at, n);
    s.kept_at += n;
    return static_cast<ssize_t>(n);
  }
  ssize_t n = 0;
  if (!s.plan.sizes) {
    n = sys::read(fd, data, want);
  } else if (std::size_t const size = s.plan.sizes->next(); size <= want) {
    n = sys::read(fd, data, size);
  } else {
    if (s.kept_capacity < size) {
      s.kept = std::make_unique_for_overwrite<char[]>(size);
      s.kept_capacity = size;
    }
    n = sys::read(fd, s.kept.get(), size);
    if (n > 0) {
      std::size_t const out = std::min(want, static_cast<std::size_t>(n));
      std::memcpy(data, s.kept.get(), out);
      s.kept_at = out;
      s.kept_end = static_cast<std::size_t>(n);
      if (s.plan.received != nullptr)
        s.plan.received->fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
      return static_cast<ssize_t>(out);
    }
  }
  if (n > 0 && s.plan.received != nullptr)
    s.plan.received->fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
  return n;
}

}  // namespace fizzgen::check
