// The Morse pipeline (engine/morse_stream): any chunk size, thread count and input kind (mapped
// file, pipe) gives the oracle's bytes; a reader that goes away and a read error stop it cleanly.

#include "engine/morse_stream.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>

#include "morse_oracle.hpp"
#include "oracle.hpp"

namespace {

using fizzgen::morse_direction;
using fizzgen::morse_stream_options;

/// A temporary file holding `content`, removed with the object.
class temp_file {
 public:
  explicit temp_file(std::string const& content) {
    char const* tmp = std::getenv("TMPDIR");
    path_ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/fizzgen_morse_XXXXXX";
    int const fd = ::mkstemp(path_.data());
    EXPECT_GE(fd, 0);
    EXPECT_EQ(::write(fd, content.data(), content.size()), static_cast<ssize_t>(content.size()));
    ::close(fd);
  }
  ~temp_file() { ::unlink(path_.c_str()); }
  temp_file(temp_file const&) = delete;
  temp_file& operator=(temp_file const&) = delete;
  std::string const& path() const { return path_; }

 private:
  std::string path_;
};

/// Everything a read end yields until end of file.
std::string drain(int fd) {
  std::string out;
  char buf[65536];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<std::size_t>(n));
  return out;
}

/// run_morse_stream from fd into a pipe; `result` gets all it wrote.
fizzgen::morse_stream_report stream_from(int fd, morse_stream_options const& o, std::string& result) {
  int out[2];
  EXPECT_EQ(::pipe(out), 0);
  std::thread reader([&] { result = drain(out[0]); });
  auto const r = fizzgen::run_morse_stream(fd, out[1], o);
  ::close(out[1]);
  reader.join();
  ::close(out[0]);
  return r;
}

/// Where a test's input comes from: a file mapped, a file read (pread or read), a pipe.
enum class source { mapped_file, read_file, pipe };
constexpr source kSources[] = {source::mapped_file, source::read_file, source::pipe};
char const* name(source s) {
  return s == source::mapped_file ? "mapped file" : s == source::read_file ? "file" : "pipe";
}

/// run_morse_stream over `input`, from a file (mapped or read) or through a pipe, out through a pipe.
std::string through_stream(std::string const& input, morse_direction d, unsigned threads, std::size_t chunk,
                           source from) {
  bool const via_pipe = from == source::pipe;
  morse_stream_options o;
  o.direction = d;
  o.threads = threads;
  o.chunk_bytes = chunk;
  o.mapping = from == source::mapped_file ? fizzgen::input_mapping::always : fizzgen::input_mapping::never;
  int out[2];
  EXPECT_EQ(::pipe(out), 0);
  std::string result;
  std::thread reader([&] { result = drain(out[0]); });
  fizzgen::morse_stream_report r;
  if (via_pipe) {
    int in[2];
    EXPECT_EQ(::pipe(in), 0);
    std::thread writer([&] {
      // Small writes so that reads see the input in odd pieces.
      for (std::size_t at = 0; at < input.size(); at += 777)
        EXPECT_GT(::write(in[1], input.data() + at, std::min<std::size_t>(777, input.size() - at)), 0);
      ::close(in[1]);
    });
    r = fizzgen::run_morse_stream(in[0], out[1], o);
    writer.join();
    ::close(in[0]);
  } else {
    temp_file const f(input);
    int const fd = ::open(f.path().c_str(), O_RDONLY);
    r = fizzgen::run_morse_stream(fd, out[1], o);
    ::close(fd);
    EXPECT_EQ(r.mapped, from == source::mapped_file && !input.empty());
  }
  ::close(out[1]);
  reader.join();
  ::close(out[0]);
  EXPECT_EQ(r.status, fizzgen::emit_status::ok) << r.error;
  EXPECT_EQ(r.bytes_in, input.size());
  EXPECT_EQ(r.bytes_out, result.size());
  return result;
}

std::string random_text(std::uint64_t seed, std::size_t n, std::string_view alphabet) {
  std::mt19937_64 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = alphabet[rng() % alphabet.size()];
  return s;
}

TEST(MorseStream, EncodeAnyChunkingAndThreadsGivesTheOracleBytes) {
  std::string const text = random_text(1, 20000, "Fizz Buzz 123\n\n\t\r  %&#\xe9");
  std::string const want = morse_oracle::encode(text);
  for (source const from : kSources)
    for (std::size_t chunk : {1, 2, 3, 7, 64, 4096, 1 << 18})
      for (unsigned threads : {1u, 2u, 3u, 8u}) {
        if (chunk < 4 && threads > 2) continue;  // tens of thousands of tiny chunks: slow, adds nothing
        ASSERT_EQ(oracle::first_difference(through_stream(text, morse_direction::encode, threads, chunk, from), want),
                  "")
            << name(from) << " chunk " << chunk << " threads " << threads;
      }
}

TEST(MorseStream, DecodeAnyChunkingAndThreadsGivesTheOracleBytes) {
  // Long groups (no code, longer than any carry) and runs without separators cross chunk edges.
  std::string text = random_text(2, 20000, ".-.- /\n\t.-..-.");
  text += std::string(5000, '.') + " .- " + std::string(3000, 'x');
  std::string const want = morse_oracle::decode(text);
  for (source const from : kSources)
    for (std::size_t chunk : {1, 2, 5, 9, 64, 4096, 1 << 18})
      for (unsigned threads : {1u, 2u, 4u}) {
        if (chunk < 4 && threads > 2) continue;
        ASSERT_EQ(oracle::first_difference(through_stream(text, morse_direction::decode, threads, chunk, from), want),
                  "")
            << name(from) << " chunk " << chunk << " threads " << threads;
      }
}

TEST(MorseStream, EmptyInputAndTrailingSpaces) {
  for (source const from : kSources) {
    EXPECT_EQ(through_stream("", morse_direction::encode, 2, 16, from), "");
    EXPECT_EQ(through_stream("", morse_direction::decode, 2, 16, from), "");
    // The stream's last trailing space is dropped, wherever the chunks end.
    EXPECT_EQ(through_stream("a  ", morse_direction::encode, 2, 1, from), ".- / /");
    EXPECT_EQ(through_stream("a #\n", morse_direction::encode, 2, 1, from), ".- /\n");
  }
}

// A file read (mapped or with pread) from where its descriptor stands: a decode chunk near that
// offset looks back at most to it, never at the bytes before.
TEST(MorseStream, FileInputStartsAtTheOffsetAndEndsAtTheEnd) {
  for (morse_direction const d : {morse_direction::encode, morse_direction::decode})
    for (auto const how : {fizzgen::input_mapping::always, fizzgen::input_mapping::never})
      for (std::size_t const chunk : {3, 5, 333}) {
        std::string const text = random_text(3, 10000, d == morse_direction::encode ? "abc \n" : ".-- /\n");
        temp_file const f(text);
        int const fd = ::open(f.path().c_str(), O_RDONLY);
        ASSERT_EQ(::lseek(fd, 5000, SEEK_SET), 5000);  // as `{ read line; fizzgen morse encode; } <file` leaves it
        morse_stream_options o;
        o.direction = d;
        o.threads = 2;
        o.chunk_bytes = chunk;
        o.mapping = how;
        std::string result;
        auto const r = stream_from(fd, o, result);
        EXPECT_EQ(r.status, fizzgen::emit_status::ok);
        std::string const rest = text.substr(5000);
        EXPECT_EQ(result, d == morse_direction::encode ? morse_oracle::encode(rest) : morse_oracle::decode(rest))
            << (d == morse_direction::encode ? "encode" : "decode") << " chunk " << chunk
            << (how == fizzgen::input_mapping::always ? " mapped" : " read");
        EXPECT_EQ(::lseek(fd, 0, SEEK_CUR), static_cast<off_t>(text.size()));
        ::close(fd);
      }
}

// By default a file is mapped only where the kernel maps it a huge page at a time: a file under
// one huge page never is, and is read instead; its bytes are the same either way.
TEST(MorseStream, AFileUnderAHugePageIsReadNotMapped) {
  std::string const text = random_text(5, 100000, "abc \n");
  temp_file const f(text);
  for (morse_direction const d : {morse_direction::encode, morse_direction::decode}) {
    int const fd = ::open(f.path().c_str(), O_RDONLY);
    int const null = ::open("/dev/null", O_WRONLY);
    morse_stream_options o;
    o.direction = d;
    o.threads = 2;
    auto const r = fizzgen::run_morse_stream(fd, null, o);
    EXPECT_EQ(r.status, fizzgen::emit_status::ok);
    EXPECT_FALSE(r.mapped);
    EXPECT_EQ(r.bytes_in, text.size());
    ::close(fd);
    ::close(null);
  }
}

TEST(MorseStream, ReaderGoneStopsQuietly) {
  auto const old = std::signal(SIGPIPE, SIG_IGN);  // as the tool does: EPIPE instead of death
  std::string const text = random_text(4, 1 << 20, "abc \n");
  temp_file const f(text);
  int const fd = ::open(f.path().c_str(), O_RDONLY);
  int out[2];
  ASSERT_EQ(::pipe(out), 0);
  ::close(out[0]);
  morse_stream_options o;
  o.threads = 2;
  o.chunk_bytes = 4096;
  auto const r = fizzgen::run_morse_stream(fd, out[1], o);
  EXPECT_EQ(r.status, fizzgen::emit_status::reader_gone);
  EXPECT_TRUE(r.error.empty());
  EXPECT_LT(r.bytes_in, text.size());  // it stopped early
  ::close(out[1]);
  ::close(fd);
  std::signal(SIGPIPE, old);
}

TEST(MorseStream, ReadErrorIsReported) {
  int const dir = ::open("/", O_RDONLY | O_DIRECTORY);
  ASSERT_GE(dir, 0);
  int const null = ::open("/dev/null", O_WRONLY);
  morse_stream_options o;
  o.threads = 2;
  auto const r = fizzgen::run_morse_stream(dir, null, o);
  EXPECT_EQ(r.status, fizzgen::emit_status::failed);
  EXPECT_EQ(r.error, "standard input: Is a directory");
  o.input_name = "/";
  EXPECT_EQ(fizzgen::run_morse_stream(dir, null, o).error, "/: Is a directory");
  ::close(dir);
  ::close(null);
}

// A file the page cache holds in small pages (written a page at a time, as cat writes) is mapped
// or read as a timed sample of both says (reading_maps_faster): either way, the oracle's bytes.
TEST(MorseStream, AFileInSmallPagesIsMappedOrReadAsTheSampleSaysAndGivesTheOracleBytes) {
  std::string const text = random_text(5, 12 << 20, "Fizz Buzz 12\n");
  std::string const morse = morse_oracle::encode(text);
  for (morse_direction const d : {morse_direction::encode, morse_direction::decode}) {
    std::string const& input = d == morse_direction::encode ? text : morse;
    temp_file const f("");
    {
      int const fd = ::open(f.path().c_str(), O_WRONLY | O_TRUNC);
      ASSERT_GE(fd, 0);
      for (std::size_t at = 0; at < input.size(); at += 4096)
        ASSERT_GT(::write(fd, input.data() + at, std::min<std::size_t>(4096, input.size() - at)), 0);
      ::close(fd);
    }
    for (unsigned threads : {1u, 2u}) {
      int const fd = ::open(f.path().c_str(), O_RDONLY);
      ASSERT_GE(fd, 0);
      morse_stream_options o;
      o.direction = d;
      o.threads = threads;
      std::string result;
      auto const r = stream_from(fd, o, result);
      ::close(fd);
      SCOPED_TRACE(::testing::Message() << (d == morse_direction::encode ? "encode" : "decode") << ", " << threads
                                        << " threads, " << (r.mapped ? "mapped" : "read"));
      EXPECT_EQ(r.status, fizzgen::emit_status::ok) << r.error;
      EXPECT_EQ(r.bytes_in, input.size());
      EXPECT_TRUE(result == (d == morse_direction::encode ? morse : morse_oracle::decode(morse)));
    }
  }
}

// A mapped input cut short while it is read used to end the process with SIGBUS; read with
// pread(2) or read(2), it is found shorter than it was at the start. The reader
// truncates the file once the first Morse arrives: the stream has then read at most the chunks in
// flight and what fills the pipe, a small part of the file, and reads the rest past the new end.
TEST(MorseStream, InputTruncatedWhileReadIsAnErrorNotASignal) {
  for (auto const how : {fizzgen::input_mapping::always, fizzgen::input_mapping::never})
    for (morse_direction const d : {morse_direction::encode, morse_direction::decode}) {
      std::string const text = random_text(4, 16 << 20, d == morse_direction::encode ? "Fizz Buzz 12\n" : ".- /\n");
      temp_file const f(text);
      int const fd = ::open(f.path().c_str(), O_RDONLY);
      ASSERT_GE(fd, 0);
      int out[2];
      ASSERT_EQ(::pipe(out), 0);
      morse_stream_options o;
      o.direction = d;
      o.threads = 2;
      o.chunk_bytes = 4096;
      o.input_name = "input.txt";
      o.mapping = how;
      fizzgen::morse_stream_report r;
      std::thread stream([&] {
        r = fizzgen::run_morse_stream(fd, out[1], o);
        ::close(out[1]);
      });
      char first = 0;
      ASSERT_EQ(::read(out[0], &first, 1), 1);
      ASSERT_EQ(::truncate(f.path().c_str(), 0), 0);
      drain(out[0]);
      stream.join();
      ::close(out[0]);
      ::close(fd);
      EXPECT_EQ(r.status, fizzgen::emit_status::failed);
      EXPECT_EQ(r.error, "input.txt: file truncated");
      // Encoding stops at the cut, far from the end. (Decoding may take the rest in one chunk: past
      // the cut it reads zeros, one group without a separator, which its chunker follows to the end.)
      if (d == morse_direction::encode) {
        EXPECT_LT(r.bytes_in, text.size());
      }
    }
}

}  // namespace
