// The CPU latency request (engine/idle_poll.hpp): what it writes where, and that it lets go.

#include "engine/idle_poll.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>

namespace {

namespace fs = std::filesystem;

/// How many of this process's descriptors name `target`.
int descriptors_on(fs::path const& target) {
  int n = 0;
  for (auto const& e : fs::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    fs::path const to = fs::read_symlink(e.path(), ec);
    if (!ec && to == target) ++n;
  }
  return n;
}

TEST(IdlePoll, NamesTheDeviceItCouldNotOpen) {
  fizzgen::idle_poll_request const r("/nonexistent/cpu_dma_latency");
  EXPECT_FALSE(r.held());
  EXPECT_EQ(r.why(), "/nonexistent/cpu_dma_latency: No such file or directory");
}

TEST(IdlePoll, WritesNothingIntoAFileThatIsNoDevice) {
  fs::path const file = fs::temp_directory_path() / ("fizzgen_idle_poll_" + std::to_string(::getpid()));
  std::ofstream(file).put('x');
  {
    fizzgen::idle_poll_request const r(file.c_str());
    EXPECT_FALSE(r.held());
    EXPECT_EQ(r.why(), file.string() + ": not a device");
    EXPECT_EQ(descriptors_on(file), 0);
  }
  EXPECT_EQ(fs::file_size(file), 1u);
  fs::remove(file);
}

TEST(IdlePoll, HoldsALimitOfZeroUntilDestroyed) {
  if (::access(fizzgen::kCpuLatencyDevice, W_OK) != 0) GTEST_SKIP() << "/dev/cpu_dma_latency is not writable here";
  int const before = descriptors_on(fizzgen::kCpuLatencyDevice);
  {
    fizzgen::idle_poll_request const r;
    ASSERT_TRUE(r.held()) << r.why();
    EXPECT_EQ(r.why(), "");
    EXPECT_EQ(descriptors_on(fizzgen::kCpuLatencyDevice), before + 1);
    // Reading the device gives the limit in force, the lowest any holder asked for: ours is 0.
    int const fd = ::open(fizzgen::kCpuLatencyDevice, O_RDONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    std::int32_t limit = -1;
    EXPECT_EQ(::read(fd, &limit, sizeof limit), static_cast<ssize_t>(sizeof limit));
    ::close(fd);
    EXPECT_EQ(limit, 0);
  }
  EXPECT_EQ(descriptors_on(fizzgen::kCpuLatencyDevice), before);  // closed: the kernel drops the request
}

}  // namespace
