// The input side of the syscall seam: read(2) errors, EINTR and short reads injected through
// sys::table() into every reader of the data path (check, check on threads, sink, Morse).

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <mutex>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "consumer/consume.hpp"
#include "engine/morse_stream.hpp"
#include "engine/sigbus_guard.hpp"
#include "output/sys.hpp"
#include "verify/check.hpp"
#include "verify/input.hpp"

namespace {

namespace sys = fizzgen::sys;

/// Restores the real syscall table when the test ends, whatever happened.
struct table_guard {
  table_guard() = default;
  ~table_guard() { sys::table() = sys::real(); }
  table_guard(table_guard const&) = delete;
  table_guard& operator=(table_guard const&) = delete;
};

/// What the fake read and pread do; plain globals because the table holds function pointers.
struct read_script {
  int eintr_first = 0;        ///< the first calls fail with EINTR
  int eintr_every = 0;        ///< > 0: every n-th call fails with EINTR
  std::size_t max_chunk = 0;  ///< > 0: at most this many bytes per call (short reads)
  int fail_after = -1;        ///< >= 0: calls after this many successful ones fail with err
  int err = EIO;
  int calls = 0, successes = 0;
  std::vector<std::size_t> asked;  ///< the length of every call
};
read_script g_read;

/// One call of the fake read or pread asking for len bytes, as g_read scripts it: false (errno set)
/// where the call is to fail, else true with len cut to the script's largest chunk.
bool scripted_call(std::size_t& len) {
  // Morse encode preads a file on its worker threads: one call at a time through the script.
  static std::mutex one_at_a_time;
  std::lock_guard const lock(one_at_a_time);
  ++g_read.calls;
  g_read.asked.push_back(len);
  if (g_read.calls <= g_read.eintr_first || (g_read.eintr_every > 0 && g_read.calls % g_read.eintr_every == 0)) {
    errno = EINTR;
    return false;
  }
  if (g_read.fail_after >= 0 && g_read.successes >= g_read.fail_after) {
    errno = g_read.err;
    return false;
  }
  ++g_read.successes;
  if (g_read.max_chunk != 0 && len > g_read.max_chunk) len = g_read.max_chunk;
  return true;
}

ssize_t fake_read(int fd, void* buf, std::size_t len) {
  return scripted_call(len) ? sys::real().read(fd, buf, len) : -1;
}

std::string fizzbuzz(int from, int to) {
  std::string s;
  for (int n = from; n <= to; ++n)
    s += n % 15 == 0 ? "FizzBuzz\n" : n % 3 == 0 ? "Fizz\n" : n % 5 == 0 ? "Buzz\n" : std::to_string(n) + "\n";
  return s;
}

/// A pipe with `text` written into it by a thread, then closed: the read end, to be closed by the caller.
class fed_pipe {
 public:
  explicit fed_pipe(std::string text) {
    if (::pipe2(fds_, O_CLOEXEC) != 0) throw std::system_error(errno, std::generic_category(), "pipe2");
    writer_ = std::thread([this, t = std::move(text)] {
      std::size_t at = 0;
      while (at < t.size()) {
        ssize_t const n = sys::real().write(fds_[1], t.data() + at, t.size() - at);
        if (n <= 0) break;
        at += static_cast<std::size_t>(n);
      }
      ::close(fds_[1]);
    });
  }
  ~fed_pipe() {
    ::close(fds_[0]);  // a writer still blocked gets EPIPE
    writer_.join();
  }
  fed_pipe(fed_pipe const&) = delete;
  fed_pipe& operator=(fed_pipe const&) = delete;
  int fd() const noexcept { return fds_[0]; }

 private:
  int fds_[2] = {-1, -1};
  std::thread writer_;
};

class ReadSeam : public ::testing::Test {
 protected:
  void SetUp() override {
    g_read = {};
    sys::table().read = fake_read;
  }
  table_guard guard_;
};

TEST_F(ReadSeam, EintrIsRetriedInTheSeam) {
  g_read.eintr_first = 3;
  char buf[16];
  fed_pipe p("hello");
  EXPECT_EQ(sys::read(p.fd(), buf, sizeof buf), 5);
  EXPECT_EQ(g_read.calls, 4);
}

TEST_F(ReadSeam, CheckGivesTheSameResultForShortReadsAndEintr) {
  std::string const text = fizzbuzz(1, 3000);
  for (unsigned threads : {1u, 3u}) {
    g_read = {};
    g_read.max_chunk = 7;
    g_read.eintr_every = 3;
    fed_pipe p(text);
    fizzgen::check::result const r =
        threads == 1 ? fizzgen::check::check_fd(p.fd(), {}) : fizzgen::check::check_fd_parallel(p.fd(), {}, threads);
    EXPECT_TRUE(r.ok) << threads;
    EXPECT_EQ(r.lines, 3000u) << threads;
    EXPECT_EQ(r.bytes, text.size()) << threads;
    EXPECT_GT(g_read.calls, 100) << threads;
  }
}

TEST_F(ReadSeam, CheckReportsAReadErrorOnEveryThreadCount) {
  for (unsigned threads : {1u, 4u}) {
    g_read = {};
    g_read.max_chunk = 100;
    g_read.fail_after = 3;
    fed_pipe p(fizzbuzz(1, 1000));
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    ASSERT_NE(out, nullptr);
    ASSERT_NE(err, nullptr);
    EXPECT_EQ(fizzgen::check::check_main({}, p.fd(), out, err, threads), 1) << threads;
    EXPECT_EQ(std::ftell(out), 0) << threads;
    std::rewind(err);
    char line[256] = {};
    ASSERT_NE(std::fgets(line, sizeof line, err), nullptr);
    EXPECT_STREQ(line, "fizzgen check: read: Input/output error\n") << threads;
    std::fclose(out);
    std::fclose(err);
  }
}

TEST_F(ReadSeam, SinkReportsAReadErrorAndCountsWhatCameBefore) {
  g_read.max_chunk = 10;
  g_read.fail_after = 2;
  g_read.err = EIO;
  fed_pipe p(std::string(1000, 'x'));
  fizzgen::consumer::report const r = fizzgen::consumer::consume(p.fd(), false, 4096, nullptr);
  EXPECT_EQ(r.method, "read");
  EXPECT_EQ(r.bytes, 20u);
  EXPECT_EQ(r.error, "fd " + std::to_string(p.fd()) + ": Input/output error");
}

TEST_F(ReadSeam, SinkCountsEveryByteThroughShortReadsAndEintr) {
  g_read.max_chunk = 3;
  g_read.eintr_every = 2;
  fed_pipe p(std::string(1000, 'x'));
  fizzgen::consumer::report const r = fizzgen::consumer::consume(p.fd(), false, 4096, nullptr);
  EXPECT_TRUE(r.error.empty()) << r.error;
  EXPECT_EQ(r.bytes, 1000u);
}

TEST_F(ReadSeam, MorseNamesTheInputOnAReadError) {
  g_read.max_chunk = 5;
  g_read.fail_after = 4;
  fed_pipe p(std::string(100, 'a'));
  int const null = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  ASSERT_GE(null, 0);
  fizzgen::morse_stream_options o;
  o.threads = 2;
  o.chunk_bytes = 8;
  fizzgen::morse_stream_report const r = fizzgen::run_morse_stream(p.fd(), null, o);
  ::close(null);
  EXPECT_EQ(r.status, fizzgen::emit_status::failed);
  EXPECT_EQ(r.error, "standard input: Input/output error");
}

/// What run_morse_stream writes for in_fd encoded on 2 threads in chunks of `chunk` bytes (at
/// most 1 MiB: what the pipe holds).
std::string morse_of_fd(int in_fd, std::size_t chunk, std::string const& name, fizzgen::morse_stream_report& r) {
  int out[2];
  if (::pipe2(out, O_CLOEXEC) != 0 || ::fcntl(out[0], F_SETPIPE_SZ, 1 << 20) < 0) return "(no pipe)";
  fizzgen::morse_stream_options o;
  o.threads = 2;
  o.chunk_bytes = chunk;
  o.input_name = name;
  r = fizzgen::run_morse_stream(in_fd, out[1], o);
  ::close(out[1]);
  std::string got(1 << 16, '\0');
  ssize_t const n = sys::real().read(out[0], got.data(), got.size());
  ::close(out[0]);
  got.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return got;
}

/// What run_morse_stream writes for `input` from a pipe.
std::string morse_of(std::string const& input, std::size_t chunk, fizzgen::morse_stream_report& r) {
  fed_pipe p(input);
  return morse_of_fd(p.fd(), chunk, "standard input", r);
}

TEST_F(ReadSeam, MorseEncodesEveryByteThroughShortReadsAndEintr) {
  std::string input;
  for (int i = 0; i < 40; ++i) input += "fizz buzz " + std::to_string(i) + "\n";
  sys::table() = sys::real();
  fizzgen::morse_stream_report plain;
  std::string const expected = morse_of(input, 64, plain);
  ASSERT_EQ(plain.status, fizzgen::emit_status::ok) << plain.error;
  ASSERT_FALSE(expected.empty());
  sys::table().read = fake_read;
  g_read.max_chunk = 3;
  g_read.eintr_every = 2;
  fizzgen::morse_stream_report r;
  EXPECT_EQ(morse_of(input, 64, r), expected);
  EXPECT_EQ(r.status, fizzgen::emit_status::ok) << r.error;
  EXPECT_EQ(r.bytes_in, input.size());
  EXPECT_GT(g_read.calls, 100);
}

ssize_t fake_pread(int fd, void* buf, std::size_t len, off_t offset) {
  return scripted_call(len) ? sys::real().pread(fd, buf, len, offset) : -1;
}

/// What run_morse_stream writes for `input` from a file, read with pread: the SIGBUS guard held
/// here (over a page of its own) keeps the stream from mapping the file, as a second mapped
/// stream in the process would.
std::string morse_of_file(std::string const& input, std::size_t chunk, fizzgen::morse_stream_report& r) {
  std::FILE* f = std::tmpfile();
  if (f == nullptr || std::fwrite(input.data(), 1, input.size(), f) != input.size() || std::fflush(f) != 0)
    return "(no file)";
  ::lseek(::fileno(f), 0, SEEK_SET);
  auto const page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  void* const held = ::mmap(nullptr, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (held == MAP_FAILED) return "(no mapping)";
  std::string got;
  {
    fizzgen::sigbus_guard guard;
    if (guard.arm(held, page)) got = morse_of_fd(::fileno(f), chunk, "input.txt", r);
  }
  ::munmap(held, page);
  std::fclose(f);
  return got;
}

TEST_F(ReadSeam, MorseEncodesAFileThroughShortPreadsAndEintrAndNamesItOnAnError) {
  std::string input;
  for (int i = 0; i < 40; ++i) input += "fizz buzz " + std::to_string(i) + "\n";
  sys::table() = sys::real();
  fizzgen::morse_stream_report plain;
  std::string const expected = morse_of_file(input, 64, plain);
  ASSERT_EQ(plain.status, fizzgen::emit_status::ok) << plain.error;
  ASSERT_EQ(expected, morse_of(input, 64, plain));  // the same bytes as from a pipe
  sys::table().pread = fake_pread;
  g_read.max_chunk = 3;
  g_read.eintr_every = 2;
  fizzgen::morse_stream_report r;
  EXPECT_EQ(morse_of_file(input, 64, r), expected);
  EXPECT_EQ(r.status, fizzgen::emit_status::ok) << r.error;
  EXPECT_EQ(r.bytes_in, input.size());
  EXPECT_GT(g_read.calls, 100);
  g_read = {};
  g_read.fail_after = 3;
  morse_of_file(input, 64, r);
  EXPECT_EQ(r.status, fizzgen::emit_status::failed);
  EXPECT_EQ(r.error, "input.txt: Input/output error");
}

}  // namespace

TEST_F(ReadSeam, CheckReadsInTheSizesOfItsReadPattern) {
  std::string const text = fizzbuzz(1, 20000);
  using fizzgen::size_pattern;
  for (unsigned threads : {1u, 3u}) {
    for (bool random : {false, true}) {
      g_read = {};
      auto const pattern = [random] {
        return random ? size_pattern(1, 7000, 42) : size_pattern(std::vector<std::size_t>{7, 4096, 1});
      };
      std::atomic<std::uint64_t> received{0};
      fizzgen::check::plan_input({pattern(), &received});
      fed_pipe p(text);
      fizzgen::check::result const r =
          threads == 1 ? fizzgen::check::check_fd(p.fd(), {}) : fizzgen::check::check_fd_parallel(p.fd(), {}, threads);
      fizzgen::check::plan_input({});
      EXPECT_TRUE(r.ok) << threads << random;
      EXPECT_EQ(r.bytes, text.size()) << threads << random;
      EXPECT_EQ(received.load(), text.size()) << threads << random;
      // Every read(2) asked for exactly the pattern's next size, to the last one (which found the end).
      size_pattern expected = pattern();
      ASSERT_GT(g_read.asked.size(), 4u);
      for (std::size_t i = 0; i < g_read.asked.size(); ++i)
        ASSERT_EQ(g_read.asked[i], expected.next()) << "call " << i << ", threads " << threads << random;
    }
  }
}
