#pragma once
// Tests that assert what vmsplice does on today's kernels (the pipe references our pages) ask
// the start-up probe first (output/probe.hpp), so that on a kernel where vmsplice copies, as a
// series queued for Linux 7.2 makes it, or fails, they are skipped with the reason instead of
// failing. The engine itself makes the same choice from the same probe.

#include <gtest/gtest.h>

#include "output/probe.hpp"

/// Skips the test unless vmsplice hands the pipe references to our pages here.
#define FIZZGEN_SKIP_UNLESS_VMSPLICE_SHARES()                                                    \
  do {                                                                                           \
    if (fizzgen::probe_vmsplice() != fizzgen::vmsplice_kind::shares)                             \
      GTEST_SKIP() << "vmsplice " << fizzgen::to_string(fizzgen::probe_vmsplice())               \
                   << " on this kernel (start-up probe): nothing here shares our pages to test"; \
  } while (false)

/// Skips the test unless vmsplice works at all here (it shares or copies): then a pipe gets the
/// vmsplice sink.
#define FIZZGEN_SKIP_UNLESS_VMSPLICE_WORKS()                                                \
  do {                                                                                      \
    if (fizzgen::probe_vmsplice() == fizzgen::vmsplice_kind::broken)                        \
      GTEST_SKIP() << "vmsplice fails on this kernel (start-up probe): pipes get write(2)"; \
  } while (false)
