#include "engine/morse_stream.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>

#include "engine/buffer.hpp"
#include "engine/sigbus_guard.hpp"
#include "generators/arch.hpp"
#include "generators/morse_codec.hpp"
#include "output/sink.hpp"
#include "output/sys.hpp"
#include "pipeline/ordered.hpp"

namespace fizzgen {
namespace {

/// As coreutils words a failed call: the file it was about, then the reason.
[[noreturn]] void throw_errno(std::string const& file, int err) {
  throw std::runtime_error(file + ": " + std::strerror(err));
}

/// One chunk on its way through the pipeline; reused, buffers and all.
struct token {
  std::unique_ptr<char[]> in_buf;  ///< read(2) and pread(2) input lands here
  std::span<char const> in;        ///< the chunk: in in_buf or in the mapping
  /// >= 0: the chunk is file_len bytes of the file from there, not read yet (decode: the groups
  /// that end there, see positioned_decode_chunk).
  off_t file_offset = -1;
  std::size_t file_len = 0;
  std::unique_ptr<char[]> out_buf;
  char* out = nullptr;  ///< out_buf + 1: the byte before is room for a space the joiner adds
  std::size_t out_len = 0;
};

/// Whether the kernel maps [p, p + length) a huge page at a time: it does when the page cache holds
/// the file in huge folios and the mapping is aligned to them. Touches the first huge page inside
/// the range (the caller has armed the SIGBUS guard) and asks smaps whether it came in whole.
bool huge_mapped(char const* p, std::size_t length) noexcept {
  auto const start = reinterpret_cast<std::uintptr_t>(p);
  std::uintptr_t const first = (start + buffer::kHugePage - 1) / buffer::kHugePage * buffer::kHugePage;
  if (first + buffer::kHugePage > start + length) return false;  // under one huge page: nothing to gain
  std::size_t const before = rollup_kb("FilePmdMapped");
  (void)*reinterpret_cast<char const volatile*>(first);
  return rollup_kb("FilePmdMapped") > before;
}

/// Whether reading the file mapped at p (`length` bytes from file offset `at`, page-aligned) costs
/// less than reading it with pread, where the page cache holds it in small pages: the mapping
/// then takes a page fault for every few pages (fault-around), pread a copy of every byte. Times
/// both on the same samples of the file: a pread of each into a buffer touched beforehand (the
/// copy, and the file's pages into the cache), then a load a page from the mapping (the faults,
/// which map the pages the copy left there). Four samples of 256 KiB spread over the file, about
/// a tenth of a millisecond in all. Files under 8 MiB are read: little to gain, and the samples
/// would be most of them. The caller has armed the SIGBUS guard over the mapping.
bool reading_maps_faster(int fd, char const* p, off_t at, std::size_t length) {
  constexpr std::size_t kSample = std::size_t{256} << 10;
  constexpr std::size_t kSamples = 4;
  constexpr std::size_t kPage = 4096;
  if (length < (std::size_t{8} << 20)) return false;
  auto const buf = std::make_unique<char[]>(kSample);
  std::memset(buf.get(), 0, kSample);  // its own page faults are not the copy's
  using clock = std::chrono::steady_clock;
  clock::duration copies{}, faults{};
  for (std::size_t k = 1; k <= kSamples; ++k) {
    std::size_t const from = length / (kSamples + 1) * k / kPage * kPage;
    auto const t0 = clock::now();
    if (sys::pread(fd, buf.get(), kSample, at + static_cast<off_t>(from)) <= 0) return false;
    auto const t1 = clock::now();
    for (std::size_t i = 0; i < kSample; i += kPage) (void)*reinterpret_cast<char const volatile*>(p + from + i);
    auto const t2 = clock::now();
    copies += t1 - t0;
    faults += t2 - t1;
  }
  return faults < copies;
}

/// A regular file's bytes from the current offset, mapped; empty when the fd is anything else
/// (or a file that says it is empty, like those in /proc, which must be read to be seen), or when
/// `how` says to read it. A file cut short while it is mapped reads as zeros past the cut, and
/// cut() says so (sigbus_guard).
class mapping {
 public:
  mapping(int fd, input_mapping how) : fd_(fd) {
    struct stat st {};
    if (how == input_mapping::never || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return;
    off_t const offset = ::lseek(fd, 0, SEEK_CUR);
    if (offset < 0 || offset >= st.st_size) return;
    auto const page = static_cast<off_t>(::sysconf(_SC_PAGESIZE));
    off_t const aligned = offset - offset % page;  // mmap offsets must be page-aligned
    length_ = static_cast<std::size_t>(st.st_size - aligned);
    void* p = ::mmap(nullptr, length_, PROT_READ, MAP_PRIVATE, fd, aligned);
    if (p == MAP_FAILED) return;    // read(2) instead
    if (!guard_.arm(p, length_)) {  // another mapped stream holds the guard: read(2) instead
      ::munmap(p, length_);
      return;
    }
    if (how == input_mapping::automatic && !huge_mapped(static_cast<char const*>(p), length_) &&
        !reading_maps_faster(fd, static_cast<char const*>(p), aligned, length_)) {
      guard_.disarm();
      ::munmap(p, length_);
      return;
    }
    ::madvise(p, length_, MADV_SEQUENTIAL);
    size_ = st.st_size;
    base_ = static_cast<char*>(p);
    data_ = {base_ + (offset - aligned), static_cast<std::size_t>(st.st_size - offset)};
  }
  ~mapping() {
    if (base_ == nullptr) return;
    guard_.disarm();
    ::munmap(base_, length_);
  }
  mapping(mapping const&) = delete;
  mapping& operator=(mapping const&) = delete;

  bool mapped() const noexcept { return base_ != nullptr; }
  std::span<char const> data() const noexcept { return data_; }
  /// True once a read of the mapping found the file cut short.
  bool cut() const noexcept { return guard_.truncated(); }
  /// cut(), or the file is now shorter than when it was mapped (a cut within the last page
  /// reads as zeros without a fault).
  bool cut_short() const noexcept {
    struct stat st {};
    return cut() || (mapped() && ::fstat(fd_, &st) == 0 && st.st_size < size_);
  }
  /// Leaves the fd's offset at the end, as reading it would have.
  void consumed() const noexcept {
    if (mapped()) ::lseek(fd_, 0, SEEK_END);
  }
  /// Unmaps the pages of piece `i` of `n` (cut at huge pages), read no more: threads unmapping a
  /// piece each take less time than munmap alone (see run_morse_stream).
  void drop_piece(std::size_t i, std::size_t n) const noexcept {
    std::size_t const hp = buffer::kHugePage;
    auto const at = [&](std::size_t k) { return k == n ? length_ : length_ / hp * k / n * hp; };
    if (base_ != nullptr && at(i + 1) > at(i)) ::madvise(base_ + at(i), at(i + 1) - at(i), MADV_DONTNEED);
  }

 private:
  int fd_;
  char* base_ = nullptr;
  std::size_t length_ = 0;
  off_t size_ = 0;  ///< the file's size when it was mapped
  std::span<char const> data_;
  sigbus_guard guard_;
};

/// A regular file's bytes from the current offset, when the file is not mapped: read with pread(2)
/// by whichever thread transforms them, no copy in the serial stage; its size at the start tells a
/// file cut short while it was read. Empty when the fd is anything else.
class positioned_file {
 public:
  explicit positioned_file(int fd) : fd_(fd) {
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= 0) return;
    off_t const offset = ::lseek(fd, 0, SEEK_CUR);
    if (offset < 0 || offset >= st.st_size) return;
    start_ = offset;
    size_ = st.st_size;
  }
  bool open() const noexcept { return size_ > 0; }
  off_t start() const noexcept { return start_; }
  off_t size() const noexcept { return size_; }
  /// Reads the chunk [offset, offset + len) into buf; fewer bytes when the file was cut short
  /// (then cut() says so from here on).
  std::size_t read(char* buf, std::size_t len, off_t offset, std::string const& name) {
    std::size_t got = 0;
    while (got < len) {
      ssize_t const r = sys::pread(fd_, buf + got, len - got, offset + static_cast<off_t>(got));
      if (r < 0) throw_errno(name, static_cast<int>(-r));
      if (r == 0) {
        cut_.store(true, std::memory_order_relaxed);  // only a verdict: nothing is published by it
        break;
      }
      got += static_cast<std::size_t>(r);
    }
    return got;
  }
  bool cut() const noexcept { return cut_.load(std::memory_order_relaxed); }
  /// cut(), or the file is now shorter than at the start.
  bool cut_short() const noexcept {
    struct stat st {};
    return cut() || (open() && ::fstat(fd_, &st) == 0 && st.st_size < size_);
  }
  /// Leaves the fd's offset at the end, as reading it would have.
  void consumed() const noexcept {
    if (open()) ::lseek(fd_, 0, SEEK_END);
  }

 private:
  int fd_;
  off_t start_ = 0;
  off_t size_ = 0;  ///< the file's size at the start; 0: not a regular file (or empty)
  std::atomic<bool> cut_{false};
};

/// Reads into buf: at least one byte unless the input ended (returns 0), more while more is
/// ready at once, so a flowing pipe gives full chunks and a tty each line as it is typed.
std::size_t read_some(int fd, char* buf, std::size_t cap, std::string const& name) {
  std::size_t got = 0;
  while (got < cap) {
    ssize_t const r = sys::read(fd, buf + got, cap - got);
    if (r > 0) {
      got += static_cast<std::size_t>(r);
      if (sys::poll_in(fd, 0) <= 0) break;  // nothing more ready now
      continue;
    }
    if (r == 0) break;
    if (r == -EAGAIN) {  // a non-blocking fd 0: wait for data rather than spin
      if (got > 0) break;
      if (int const p = sys::poll_in(fd, -1); p < 0) throw_errno(name, -p);
      continue;
    }
    throw_errno(name, static_cast<int>(-r));
  }
  return got;
}

/// write(2) until all of data is out; EAGAIN waits for room, EPIPE means the reader went away.
emit_status write_all(int fd, std::span<char const> data, std::string& error) noexcept {
  while (!data.empty()) {
    ssize_t const n = sys::write(fd, data.data(), data.size());
    if (n == -EAGAIN) {
      if (int const r = sys::poll_out(fd); r < 0) {
        error = output_name(fd) + ": " + std::strerror(-r);
        return emit_status::failed;
      }
      continue;
    }
    if (n == -EPIPE) return emit_status::reader_gone;
    if (n < 0) {
      error = output_name(fd) + ": " + std::strerror(static_cast<int>(-n));
      return emit_status::failed;
    }
    data = data.subspan(static_cast<std::size_t>(n));
  }
  return emit_status::ok;
}

/// A decode chunk of a mapped input: bytes [from, to); the next chunk starts at to.
struct decode_span {
  std::size_t from, to;
};

/// The decode chunk of `all` at pos, of at most about `chunk` bytes: it ends right after the last
/// separator among the next chunk bytes, so it starts and ends at group edges. When those bytes
/// hold no separator they begin one long group: the chunk is then that group's last 8 bytes (all
/// of it when shorter) and the separator after it, which decode alike (a group of 8 or more bytes
/// is one marker); so no chunk exceeds chunk + 9 bytes, whatever the input.
decode_span decode_chunk(std::span<char const> all, std::size_t pos, std::size_t chunk) noexcept {
  std::size_t const end = std::min(all.size(), pos + chunk);
  for (std::size_t i = end; i > pos; --i)
    if (morse::is_separator(all[i - 1])) return {pos, i};
  std::size_t sep = end;
  while (sep < all.size() && !morse::is_separator(all[sep])) ++sep;
  return {std::max(pos, sep - std::min<std::size_t>(sep, 8)), sep < all.size() ? sep + 1 : all.size()};
}

/// A decode chunk of a file read with pread: the groups whose separator lies in the file's bytes
/// [offset, offset + len) (at the end of the file, also those the end closes). `buf` holds the
/// `back` <= 8 bytes before offset, then `got` bytes from offset; returns the chunk within buf.
/// It starts after the last separator among the bytes before offset, or 8 bytes back where they
/// hold none (a group of 8 or more bytes is one marker however long, as in decode_chunk; fewer
/// than 8 bytes back only at the start of the input), and ends after the last separator from
/// offset on (empty when there is none: the group goes on into a later chunk), or at the end.
std::span<char const> positioned_decode_chunk(char const* buf, std::size_t back, std::size_t got,
                                              bool at_end) noexcept {
  std::size_t first = back;
  while (first > 0 && !morse::is_separator(buf[first - 1])) --first;
  std::size_t last = back + got;
  if (!at_end)
    while (last > back && !morse::is_separator(buf[last - 1])) --last;
  if (last <= back) return {};  // no separator from offset on: the group is a later chunk's
  return {buf + first, last - first};
}

/// The serial input stage: cuts the input into chunks in order.
class chunker {
 public:
  chunker(int fd, morse_stream_options const& o)
      : fd_(fd), map_(fd, o.mapping), file_(map_.mapped() ? -1 : fd), positioned_(file_.open()), options_(o) {
    if (options_.chunk_bytes == 0) {
      bool const file = map_.mapped() || positioned_;
      options_.chunk_bytes = o.direction == morse_direction::decode && file
                                 ? morse_stream_options::kDecodeFileChunkBytes
                                 : morse_stream_options::kChunkBytes;
    }
  }
  /// Input bytes per chunk (decode chunks may hold up to 9 more: see run_morse_stream).
  std::size_t chunk_bytes() const noexcept { return options_.chunk_bytes; }

  /// Fills t.in with the next chunk (or, for a positioned file, says where it is); false once the
  /// input has ended.
  bool next(token& t) {
    t.file_offset = -1;
    if (positioned_) {
      auto const left = static_cast<std::size_t>(file_.size() - file_.start()) - pos_;
      if (left == 0) return false;
      t.file_len = std::min(left, options_.chunk_bytes);
      t.file_offset = file_.start() + static_cast<off_t>(pos_);
      t.in = {};
      pos_ += t.file_len;
      bytes_ += t.file_len;
      return true;
    }
    if (map_.mapped()) {
      std::span<char const> const all = map_.data();
      if (pos_ == all.size()) return false;
      decode_span span{pos_, std::min(all.size(), pos_ + options_.chunk_bytes)};
      if (options_.direction == morse_direction::decode) span = decode_chunk(all, pos_, options_.chunk_bytes);
      t.in = all.subspan(span.from, span.to - span.from);
      bytes_ += span.to - pos_;
      pos_ = span.to;
      return true;
    }
    if (ended_) return false;
    if (options_.direction == morse_direction::encode) {
      std::size_t const n = read_some(fd_, t.in_buf.get(), options_.chunk_bytes, options_.input_name);
      bytes_ += n;
      t.in = {t.in_buf.get(), n};
      ended_ = n == 0;
      return n > 0;
    }
    return next_decode(t);
  }

  bool mapped() const noexcept { return map_.mapped(); }
  /// Reads a positioned chunk (token::file_offset >= 0) into t.in_buf; on any thread. Decoding,
  /// with up to 8 bytes before it, cut to the groups it ends (positioned_decode_chunk).
  void read_chunk(token& t) {
    char* const buf = t.in_buf.get();
    if (options_.direction == morse_direction::encode) {
      t.in = {buf, file_.read(buf, t.file_len, t.file_offset, options_.input_name)};
      return;
    }
    auto const back = static_cast<std::size_t>(std::min<off_t>(8, t.file_offset - file_.start()));
    off_t const from = t.file_offset - static_cast<off_t>(back);
    std::size_t const got = file_.read(buf, back + t.file_len, from, options_.input_name);
    if (got < back) {  // cut short before the chunk: emit() reports it
      t.in = {};
      return;
    }
    bool const at_end = t.file_offset + static_cast<off_t>(t.file_len) == file_.size();
    t.in = positioned_decode_chunk(buf, back, got - back, at_end);
  }
  /// A mapped or positioned input was cut short while it was read: see mapping::cut and cut_short.
  bool cut() const noexcept { return map_.cut() || file_.cut(); }
  bool cut_short() const noexcept { return map_.cut_short() || file_.cut_short(); }
  /// Input bytes taken so far.
  std::uint64_t bytes() const noexcept { return bytes_; }
  /// Unmaps piece i of n of a mapped input, read no more.
  void drop_piece(std::size_t i, std::size_t n) const noexcept { map_.drop_piece(i, n); }
  void finish() const noexcept {
    map_.consumed();
    file_.consumed();
  }

 private:
  /// Decode chunks must end right after a separator; what follows the last one waits for the
  /// next read. Only its first kCarry bytes are kept: a group of 8 or more bytes is unknown
  /// whatever comes next, so 8 say all there is to say, and memory stays bounded on any input.
  bool next_decode(token& t) {
    static constexpr std::size_t kCarry = 8;
    char* const buf = t.in_buf.get();
    for (;;) {
      std::memcpy(buf, carry_, carry_len_);
      std::size_t const n = read_some(fd_, buf + carry_len_, options_.chunk_bytes, options_.input_name);
      bytes_ += n;
      std::size_t const have = carry_len_ + n;
      if (n == 0) {  // the end closes the last group
        ended_ = true;
        t.in = {buf, have};
        carry_len_ = 0;
        return have > 0;
      }
      std::size_t cut = have;
      while (cut > 0 && !morse::is_separator(buf[cut - 1])) --cut;
      std::size_t const rest = have - cut;
      carry_len_ = std::min(rest, kCarry);
      std::memmove(carry_, buf + cut, carry_len_);
      if (cut > 0) {
        t.in = {buf, cut};
        return true;
      }
    }
  }

  int fd_;
  mapping map_;
  positioned_file file_;  ///< a regular file not mapped: read with pread(2); its size kept
  bool positioned_;       ///< reading file_
  morse_stream_options options_;
  std::size_t pos_ = 0;
  std::uint64_t bytes_ = 0;
  bool ended_ = false;
  char carry_[8] = {};
  std::size_t carry_len_ = 0;
};

}  // namespace

morse_stream_report run_morse_stream(int in_fd, int out_fd, morse_stream_options const& options) {
  morse_stream_report report;
  bool const encoding = options.direction == morse_direction::encode;
  unsigned const threads = std::max(options.threads, 1u);
  // TBB's threads first: the second takes a millisecond or two to start, meanwhile the input is
  // mapped.
  std::optional<pipeline::pool> workers;
  if (threads > 1) workers.emplace(threads);
  chunker input(in_fd, options);
  std::size_t const chunk = input.chunk_bytes();
  // A decode chunk may hold up to 9 bytes more than `chunk`: 8 carried from the previous read, the
  // last 8 bytes of a long group and its separator (decode_chunk), or 8 read before its offset
  // (positioned_decode_chunk).
  std::size_t const in_cap = chunk + 9;
  std::size_t const out_cap = encoding ? morse::encode_bound(in_cap) : morse::decode_bound(in_cap);
  morse::encode_joiner joiner;
  kernel_arch const& arch = options.arch != nullptr ? *options.arch : default_arch();

  // The three stages: read in order, transform in parallel, write in order.
  auto read = [&](token& t) {
    if (!t.out_buf) {
      // new char[] leaves the memory untouched: pages a chunk never reaches cost nothing.
      t.in_buf.reset(new char[in_cap]);
      t.out_buf.reset(new char[out_cap + 1]);
      t.out = t.out_buf.get() + 1;
    }
    return input.next(t);
  };
  auto transform = [&](token& t) {
    if (t.file_offset >= 0) input.read_chunk(t);
    // A mapped chunk is read in place: the AVX-512 kernels prefetch their input 4 KiB ahead, which
    // took 0.88x the CPU time of copying it into the token's buffer first (or of pread into it)
    // on a 256 MiB text to encode, and 0.93x on 2 GiB of Morse to decode.
    t.out_len = encoding ? morse::encode_eager(t.in, t.out, arch) : morse::decode(t.in, t.out, arch);
  };
  auto emit = [&](token& t) {
    if (input.cut()) {  // this chunk may hold zeros read past the cut: nothing more goes out
      report.status = emit_status::failed;
      report.error = options.input_name + ": file truncated";
      return false;
    }
    std::span<char const> out{t.out, t.out_len};
    if (encoding) {
      morse::encode_joiner::piece const p = joiner.next(out);
      out = p.body;
      if (p.space) {
        t.out[-1] = ' ';  // the byte before the chunk is reserved for this
        out = {t.out - 1, out.size() + 1};
      }
    }
    report.status = write_all(out_fd, out, report.error);
    report.bytes_out += out.size();
    return report.status == emit_status::ok;
  };

  try {
    // One chunk in flight per thread: each thread then keeps reusing its own token, whose buffers
    // stay in its core's cache. With more tokens than threads, TBB hands a thread whichever token
    // was freed last, often one the other core wrote: with 2 threads and 6 tokens, 2268 of 16384
    // chunks went to a thread other than the token's last one, with 2 tokens 14, and 2 GiB
    // encoded in 0.95x the time (decoded in 0.97x). Capped: thread counts far above the CPUs buy
    // nothing, and each token keeps the pages of its buffers it has used.
    pipeline::run_ordered<token>(workers ? &*workers : nullptr, threads, std::size_t{std::min(threads, 64u)}, read,
                                 transform, emit);
  } catch (std::bad_alloc const&) {  // a chunk's buffers (taken as chunks come): ulimit -v, a cgroup
    report.status = emit_status::failed;
    report.error = "cannot allocate the buffers of a chunk (" + std::to_string(in_cap >> 10) + " KiB in, " +
                   std::to_string(out_cap >> 10) + " KiB out): " + std::strerror(ENOMEM);
  } catch (std::exception const& e) {
    report.status = emit_status::failed;
    report.error = e.what();
  }
  if (workers && input.mapped()) {
    // Unmapping a file that the page cache holds in small folios takes a while, and nothing else
    // runs then (256 MiB: 3.3 ms at the end of a 43 ms run on two threads); the threads each
    // unmapping pieces took 1.9-2.0 ms. Not while they transform chunks: each unmap interrupts
    // the other CPU to flush its TLB (done behind the emitted chunks, two threads took 1.09x the
    // time).
    struct pieces {
      chunker const& input;
      std::size_t n;
    } p{input, 4 * std::size_t{threads}};  // a few each: a thread late to the task takes fewer
    workers->each(
        p.n,
        [](void* context, std::size_t i) {
          auto const& q = *static_cast<pieces const*>(context);
          q.input.drop_piece(i, q.n);
        },
        &p);
  }
  report.bytes_in = input.bytes();
  report.mapped = input.mapped();
  if (report.status == emit_status::ok && input.cut_short()) {
    report.status = emit_status::failed;
    report.error = options.input_name + ": file truncated";
  }
  if (report.status == emit_status::ok) input.finish();
  return report;
}

morse_stream_report run_morse_file(std::string const& file, morse_stream_options options) {
  int const out_flags = ::fcntl(STDOUT_FILENO, F_GETFL);
  if (out_flags < 0) throw std::runtime_error("standard output is closed");
  if ((out_flags & O_ACCMODE) == O_RDONLY) throw std::runtime_error("standard output is not open for writing");
  int fd = STDIN_FILENO;
  if (file != "-") {
    fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw std::runtime_error(file + ": " + std::strerror(errno));
    options.input_name = file;
  }
  morse_stream_report r = run_morse_stream(fd, STDOUT_FILENO, options);
  if (fd != STDIN_FILENO) ::close(fd);
  return r;
}

}  // namespace fizzgen
