// The sizing model (engine/sizing.hpp) on described machines: what it picks, and the properties it
// promises whatever the machine; and how a ring of buffers lies in huge pages (engine/buffer.hpp).
#include "engine/sizing.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cstddef>

#include "engine/buffer.hpp"

namespace {

using fizzgen::cache_sizes;
using fizzgen::ring_buffers;
using fizzgen::size_stream;
using fizzgen::stream_kind;

constexpr std::size_t KiB = 1024;
constexpr std::size_t MiB = 1024 * KiB;

struct machine {
  std::size_t l2, pipe_max;
  std::size_t chunk, pipe;  // expected
};

TEST(Sizing, RewrittenStreamsOnDescribedMachines) {
  machine const machines[] = {
      // L2 too small for a ring of 512 KiB chunks: it goes to L3 with 1 MiB chunks.
      {512 * KiB, 1 * MiB, 1 * MiB, 1 * MiB},
      {1 * MiB, 1 * MiB, 1 * MiB, 1 * MiB},
      {1280 * KiB, 1 * MiB, 1 * MiB, 1 * MiB},
      // 2 MiB of L2: three 512 KiB chunks (1.5 MiB) stay in it, the pipe holds one.
      {2 * MiB, 1 * MiB, 512 * KiB, 512 * KiB},
      {4 * MiB, 1 * MiB, 1 * MiB, 1 * MiB},
      {32 * MiB, 16 * MiB, 1 * MiB, 1 * MiB},  // never above 1 MiB, even where pipes may be 16 MiB
      // A pipe that cannot hold a chunk: as large as allowed, and the chunk stays.
      {2 * MiB, 64 * KiB, 512 * KiB, 64 * KiB},
      {1 * MiB, 256 * KiB, 1 * MiB, 256 * KiB},
      {2 * MiB, 16 * MiB, 512 * KiB, 512 * KiB},
      // fs.pipe-max-size unreadable: Linux's default, 1 MiB.
      {2 * MiB, 0, 512 * KiB, 512 * KiB},
      // An odd limit: the kernel grants powers of two pages, so ask for one.
      {2 * MiB, 300 * KiB, 512 * KiB, 256 * KiB},
  };
  for (machine const& m : machines) {
    auto const s = size_stream(stream_kind::rewritten, cache_sizes{m.l2, 32 * MiB}, m.pipe_max);
    EXPECT_EQ(s.chunk_bytes, m.chunk) << "L2 " << m.l2 << ", pipe max " << m.pipe_max << ": " << s.why;
    EXPECT_EQ(s.pipe_bytes, m.pipe) << "L2 " << m.l2 << ", pipe max " << m.pipe_max << ": " << s.why;
    EXPECT_FALSE(s.why.empty());
  }
}

TEST(Sizing, UnknownCachesAreTakenAsTwoMiB) {
  auto const s = size_stream(stream_kind::rewritten, cache_sizes{}, 1 * MiB);
  EXPECT_EQ(s.chunk_bytes, 512 * KiB);
  EXPECT_NE(s.why.find("unknown"), std::string::npos) << s.why;
}

TEST(Sizing, PropertiesHoldOnEveryMachine) {
  for (std::size_t l2 = 128 * KiB; l2 <= 64 * MiB; l2 += l2 / 4) {
    for (std::size_t pipe_max : {std::size_t{0}, 4 * KiB, 64 * KiB, 100 * KiB, 1 * MiB, 16 * MiB, 1024 * MiB}) {
      auto const s = size_stream(stream_kind::rewritten, cache_sizes{l2, 0}, pipe_max);
      SCOPED_TRACE(s.why);
      EXPECT_TRUE(std::has_single_bit(s.chunk_bytes));
      EXPECT_GE(s.chunk_bytes, 512 * KiB);
      EXPECT_LE(s.chunk_bytes, 1 * MiB);
      EXPECT_TRUE(std::has_single_bit(s.pipe_bytes));
      EXPECT_GE(s.pipe_bytes, 64 * KiB);  // every pipe may be that large
      EXPECT_LE(s.pipe_bytes, s.chunk_bytes);
      if (pipe_max >= 64 * KiB) {
        EXPECT_LE(s.pipe_bytes, pipe_max);
      }
      std::size_t const ring = ring_buffers(s.pipe_bytes, s.chunk_bytes, 1) * s.chunk_bytes;
      // Wherever 512 KiB chunks fit three to 3/4 of L2, the ring stays in L2.
      if (l2 * 3 / 4 >= 3 * 512 * KiB) {
        EXPECT_LE(ring, l2 * 3 / 4);
      }
    }
  }
}

TEST(Sizing, FreshPagesAndConstantStreams) {
  for (std::size_t l2 : {512 * KiB, 2 * MiB, 8 * MiB}) {
    auto const fresh = size_stream(stream_kind::fresh_pages, cache_sizes{l2, 0}, 1 * MiB);
    EXPECT_EQ(fresh.chunk_bytes, 4 * MiB);  // whole huge pages zeroed per chunk, twice over
    EXPECT_EQ(fresh.pipe_bytes, 1 * MiB);
    auto const constant = size_stream(stream_kind::constant, cache_sizes{l2, 0}, 16 * MiB);
    EXPECT_EQ(constant.chunk_bytes, 1 * MiB);
    EXPECT_EQ(constant.pipe_bytes, 1 * MiB);
  }
  EXPECT_EQ(size_stream(stream_kind::constant, cache_sizes{}, 64 * KiB).pipe_bytes, 64 * KiB);
}

TEST(Sizing, RingHoldsWhatThePipeHoldsAndOneChunkToSpare) {
  for (unsigned threads : {1u, 2u, 3u, 8u, 64u}) {
    for (std::size_t pipe : {64 * KiB, 512 * KiB, 1 * MiB, 16 * MiB}) {
      for (std::size_t chunk : {4 * KiB, 64 * KiB, 512 * KiB, 1 * MiB, 4 * MiB}) {
        unsigned const b = ring_buffers(pipe, chunk, threads);
        SCOPED_TRACE(::testing::Message() << threads << " threads, pipe " << pipe << ", chunk " << chunk);
        EXPECT_GE(b, 3u);
        EXPECT_LE(b, 32u);
        // After a buffer, the worker emits b - 1 more rounds of `threads` chunks before it comes
        // back: all but one of them must fill the pipe.
        if (b < 32) {
          EXPECT_GE((b - 2) * chunk * threads, pipe);
        }
        // And no more buffers than that needs.
        if (b > 3) {
          EXPECT_LT((b - 3) * chunk * threads, pipe);
        }
      }
    }
  }
  EXPECT_EQ(ring_buffers(1 * MiB, 1 * MiB, 1), 3u);
  EXPECT_EQ(ring_buffers(1 * MiB, 1 * MiB, 1, 2), 4u);
  EXPECT_EQ(ring_buffers(1 * MiB, 1 * MiB, 1, 4), 6u);
  EXPECT_EQ(ring_buffers(1 * MiB, 1 * MiB, 2, 2), 3u);
  EXPECT_EQ(ring_buffers(1 * MiB, 1 * MiB, 2, 4), 4u);
  EXPECT_EQ(ring_buffers(512 * KiB, 512 * KiB, 2), 3u);
  EXPECT_EQ(ring_buffers(1 * MiB, 64 * KiB, 1), 18u);
}

// With room for re-checks (--reuse auto), a re-check made during an emit vouches for buffers
// emitted a pipe and a chunk before it: the next R refills must be among them, so the rounds of
// chunks in the ring cover the pipe, R chunks and the worker's own round.
TEST(Sizing, RingWithRoomForRechecksCoversTheirRefills) {
  for (unsigned refills : {2u, 4u}) {
    for (unsigned threads : {1u, 2u, 3u, 8u, 64u}) {
      for (std::size_t pipe : {64 * KiB, 512 * KiB, 1 * MiB, 16 * MiB}) {
        for (std::size_t chunk : {4 * KiB, 64 * KiB, 512 * KiB, 1 * MiB, 4 * MiB}) {
          unsigned const b = ring_buffers(pipe, chunk, threads, refills);
          SCOPED_TRACE(::testing::Message()
                       << refills << " refills, " << threads << " threads, pipe " << pipe << ", chunk " << chunk);
          EXPECT_GE(b, ring_buffers(pipe, chunk, threads));  // never less than the pipe needs
          EXPECT_LE(b, 32u);
          std::size_t const round = chunk * threads;
          if (b < 32) {
            EXPECT_GE(b * round, pipe + refills * chunk + round);
          }
          if (b > 3 && b > ring_buffers(pipe, chunk, threads)) {
            EXPECT_LT((b - 1) * round, pipe + refills * chunk + round);
          }
        }
      }
    }
  }
}

// Buffers for re-checks cost no cache: four refills a re-check where the ring of three is out of
// L2 anyway (L2 1 MiB: 1 MiB chunks), two where four chunks fit in 3/4 of it, none where only
// three fit (L2 2 MiB).
TEST(Sizing, RoomForRechecksOnlyWhereTheCacheAllows) {
  EXPECT_EQ(size_stream(stream_kind::rewritten, cache_sizes{1 * MiB, 0}, 1 * MiB).recheck_refills, 4u);
  EXPECT_EQ(size_stream(stream_kind::rewritten, cache_sizes{2 * MiB, 0}, 1 * MiB).recheck_refills, 0u);
  EXPECT_EQ(size_stream(stream_kind::rewritten, cache_sizes{4 * MiB, 0}, 1 * MiB).recheck_refills, 0u);
  EXPECT_EQ(size_stream(stream_kind::rewritten, cache_sizes{8 * MiB, 0}, 1 * MiB).recheck_refills, 2u);
  for (std::size_t l2 : {512 * KiB, 1 * MiB, 1280 * KiB, 2 * MiB, 4 * MiB, 6 * MiB, 32 * MiB}) {
    auto const s = size_stream(stream_kind::rewritten, cache_sizes{l2, 0}, 1 * MiB);
    bool const three_fit = 3 * s.chunk_bytes <= l2 * 3 / 4;
    bool const four_fit = 4 * s.chunk_bytes <= l2 * 3 / 4;
    EXPECT_EQ(s.recheck_refills, !three_fit ? 4u : four_fit ? 2u : 0u) << l2;
  }
}

}  // namespace

TEST(RingLayout, PackedBuffersShareHugePagesWithoutCrossingThem) {
  constexpr std::size_t kHuge = fizzgen::buffer::kHugePage;
  for (std::size_t capacity : {std::size_t{4096}, 100 * KiB, 512 * KiB + 4100, 700 * KiB, MiB - 1, MiB + 1, 3 * MiB}) {
    for (unsigned count : {1u, 3u, 4u, 7u}) {
      fizzgen::ring_layout const l(capacity, count, true);
      for (unsigned i = 0; i < count; ++i) {
        std::size_t const at = l.offset(i);
        EXPECT_EQ(at % 4096, 0u) << capacity << " " << i;
        EXPECT_LE(at + capacity, l.bytes) << capacity << " " << i;
        if (capacity <= kHuge) {
          EXPECT_EQ(at / kHuge, (at + capacity - 1) / kHuge) << "crosses: " << capacity << " " << i;
        }
        if (i > 0) {
          EXPECT_GE(at, l.offset(i - 1) + capacity) << "overlaps: " << capacity << " " << i;
        }
      }
    }
  }
  // A 512 KiB chunk and its slack: three to a huge page, so one refill on fresh pages serves three.
  fizzgen::ring_layout const three(512 * KiB + 4100, 3, true);
  EXPECT_EQ(three.per_page, 3u);
  EXPECT_LE(three.bytes, kHuge);
  // Not packed, every buffer starts a huge page of its own, as a buffer of its own would.
  fizzgen::ring_layout const apart(512 * KiB + 4100, 3, false);
  for (unsigned i = 0; i < 3; ++i) EXPECT_EQ(apart.offset(i), i * kHuge);
}
