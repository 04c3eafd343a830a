#include "pipeline/ordered.hpp"

#include <tbb/global_control.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <exception>

namespace fizzgen::pipeline {

void run_chain(tbb::filter<void, void> const& chain, unsigned threads, std::size_t tokens) {
  // Taken before the run, finalized after it: see ordered.hpp on ThreadSanitizer.
  tbb::task_scheduler_handle workers{tbb::attach{}};
  std::exception_ptr failure;
  try {
    // TBB caps its workers at the CPU count (and warns on stderr when asked for more) unless the
    // limit is raised: the thread count is the user's to choose.
    threads = std::max(threads, 1u);
    tbb::global_control const limit(tbb::global_control::max_allowed_parallelism, threads);
    tbb::task_arena arena(static_cast<int>(threads));
    arena.execute([&] { tbb::parallel_pipeline(std::max<std::size_t>(tokens, 1), chain); });
  } catch (...) {
    failure = std::current_exception();
  }
  tbb::finalize(workers, std::nothrow);
  if (failure) std::rethrow_exception(failure);
}

}  // namespace fizzgen::pipeline
