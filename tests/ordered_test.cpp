// The ordered pipeline's pool (pipeline/ordered.hpp): its threads start when it is made, run the
// chain in input order, and call each index of each() once.
#include "pipeline/ordered.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

namespace {

TEST(OrderedPool, EachCallsEveryIndexOnceAndTheCallerSeesWhatEachWrote) {
  for (unsigned const threads : {1u, 2u, 3u}) {
    fizzgen::pipeline::pool workers(threads);
    EXPECT_EQ(workers.threads(), threads);
    for (std::size_t const n : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{64}}) {
      struct calls {
        std::vector<std::atomic<int>> count;
        std::vector<std::size_t> wrote;  // plain writes: each() must order them before its return
      } c{std::vector<std::atomic<int>>(n), std::vector<std::size_t>(n, 0)};
      workers.each(
          n,
          [](void* context, std::size_t i) {
            auto& d = *static_cast<calls*>(context);
            d.count[i].fetch_add(1, std::memory_order_relaxed);
            d.wrote[i] = i + 1;
          },
          &c);
      for (std::size_t i = 0; i < n; ++i) {
        EXPECT_EQ(c.count[i].load(), 1) << "index " << i << " of " << n << ", " << threads << " threads";
        EXPECT_EQ(c.wrote[i], i + 1);
      }
    }
  }
}

TEST(OrderedPool, RunsTheStagesInInputOrderOnItsThreads) {
  for (unsigned const threads : {1u, 2u, 4u}) {
    fizzgen::pipeline::pool workers(threads);
    for (int run = 0; run < 2; ++run) {  // a pool runs more than one chain
      struct token {
        int n = 0;
        std::string text;
      };
      int next = 0;
      std::string got, want;
      for (int i = 0; i < 3000; ++i) want += std::to_string(i * i) + '\n';
      fizzgen::pipeline::run_ordered<token>(
          &workers, 99, 2 * std::size_t{threads},
          [&](token& t) {
            if (next == 3000) return false;
            t.n = next++;
            return true;
          },
          [](token& t) { t.text = std::to_string(t.n * t.n) + '\n'; },
          [&](token& t) {
            got += t.text;
            return true;
          });
      EXPECT_EQ(got, want) << threads << " threads, run " << run;
    }
  }
}

}  // namespace
