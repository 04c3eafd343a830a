#pragma once
// oneTBB hands work from thread to thread inside libtbb.so, and a distribution's libtbb carries no
// ThreadSanitizer instrumentation: TSan does not see those hand-offs as synchronisation and reports
// every object a TBB pipeline passes on as a data race. These mark the hand-offs in TSan builds
// (release where a thread is done with an object, acquire where the next one picks it up) and are
// nothing otherwise.

#if defined(__SANITIZE_THREAD__)
#define FIZZGEN_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FIZZGEN_TSAN 1
#endif
#endif

#if defined(FIZZGEN_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

namespace fizzgen {

inline void tsan_release([[maybe_unused]] void const* p) noexcept {
#if defined(FIZZGEN_TSAN)
  __tsan_release(const_cast<void*>(p));
#endif
}

inline void tsan_acquire([[maybe_unused]] void const* p) noexcept {
#if defined(FIZZGEN_TSAN)
  __tsan_acquire(const_cast<void*>(p));
#endif
}

}  // namespace fizzgen
