// The ordered pipeline's pool (pipeline/ordered.hpp): its threads start when it is made, run the
// chain in input order, call each index of each() once, and hold a CPU each where there are
// enough (the caller's own affinity back once the pool ends).
#include "pipeline/ordered.hpp"

#include <gtest/gtest.h>
#include <pthread.h>
#include <sched.h>

#include <atomic>
#include <chrono>
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

/// The calling thread's allowed CPUs.
cpu_set_t affinity() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(0, sizeof set, &set), 0);
  return set;
}

TEST(OrderedPool, EachThreadHoldsACpuOfItsOwnWhileThePoolLasts) {
  cpu_set_t const before = affinity();
  unsigned const cpus = static_cast<unsigned>(CPU_COUNT(&before));
  if (cpus < 2) GTEST_SKIP() << "one CPU allowed";
  for (unsigned const threads : {2u, cpus}) {
    struct seen {
      pthread_t caller = ::pthread_self();
      std::atomic<int> workers{0};
      std::atomic<int> wrong{0};  // a worker not pinned to one CPU, or pinned to the caller's
      int caller_cpu = -1;
    } c;
    {
      fizzgen::pipeline::pool workers(threads);
      cpu_set_t const held = affinity();
      ASSERT_EQ(CPU_COUNT(&held), 1) << threads << " threads: the caller keeps the CPU it is on";
      for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu)
        if (CPU_ISSET(cpu, &held)) c.caller_cpu = cpu;
      workers.each(
          64,
          [](void* context, std::size_t) {
            auto& d = *static_cast<seen*>(context);
            std::this_thread::sleep_for(std::chrono::microseconds(200));  // room for the workers to take some
            if (::pthread_equal(::pthread_self(), d.caller) != 0) return;
            cpu_set_t own = affinity();
            d.workers.fetch_add(1);
            if (CPU_COUNT(&own) != 1 || CPU_ISSET(d.caller_cpu, &own)) d.wrong.fetch_add(1);
          },
          &c);
    }
    EXPECT_EQ(c.wrong.load(), 0) << threads << " threads";
    EXPECT_GT(c.workers.load(), 0) << threads << " threads: no call ran on a worker";
    cpu_set_t const after = affinity();
    EXPECT_TRUE(CPU_EQUAL(&after, &before)) << threads << " threads: the caller's affinity once the pool ended";
  }
  {  // more threads than CPUs: nobody is pinned
    fizzgen::pipeline::pool workers(cpus + 1);
    cpu_set_t const during = affinity();
    EXPECT_TRUE(CPU_EQUAL(&during, &before));
  }
}

}  // namespace
