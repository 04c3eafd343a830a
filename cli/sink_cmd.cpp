#include "cli/sink_cmd.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <stdexcept>
#include <stop_token>

#include "cli/args.hpp"
#include "cli/usage.hpp"
#include "output/sys.hpp"
#include "report/progress.hpp"
#include "report/report.hpp"
#include "report/units.hpp"

namespace fizzgen::cli {
namespace {

using clock_type = std::chrono::steady_clock;
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
/// splice moves at most what the pipe holds; asking for more costs nothing.
constexpr std::size_t kSpliceMax = std::size_t{1} << 30;

constexpr char const* kSinkFooter =
    R"(Timing runs from the first byte to the end of input, so a slow start of the producer does
not count. splice(2) needs a pipe on standard input: a file or a terminal is read with read(2)
instead (a note on stderr says so).

Examples:
  fizzgen --bytes 10G | fizzgen sink              splice into /dev/null, like pv -q >/dev/null
  fizzgen --bytes 10G | fizzgen sink --read       read(2) into a 128 KiB buffer, like cat >/dev/null
  fizzgen --bytes 1G | fizzgen sink --json        {..., "bytes": 1073741824, "seconds": ...} on stdout
  fizzgen sink --read <big.file)";

/// A clock that starts at the first byte, so that a slow start of the producer does not count.
struct first_byte_clock {
  clock_type::time_point start{};
  bool started = false;
  void tick() {
    if (!started) {
      start = clock_type::now();
      started = true;
    }
  }
  double seconds() const { return started ? std::chrono::duration<double>(clock_type::now() - start).count() : 0; }
};

/// As coreutils words a failed read: the input, then the reason ("standard input: Is a directory").
std::string errno_text(int fd, int err) {
  return (fd == STDIN_FILENO ? std::string("standard input") : "fd " + std::to_string(fd)) + ": " + std::strerror(err);
}

/// Adds n bytes to the --progress counter, if there is one. Relaxed: the display only polls it.
void count(progress_counter* progress, ssize_t n) noexcept {
  if (progress != nullptr) progress->bytes.fetch_add(static_cast<std::uint64_t>(n), std::memory_order_relaxed);
}

/// read(2) until the end; returns "" or the error.
std::string read_all(int fd, std::size_t block_size, sink_report& r, first_byte_clock& clock,
                     progress_counter* progress) {
  // Page-aligned, so the kernel copies into whole pages.
  std::unique_ptr<char, decltype(&std::free)> buf(static_cast<char*>(std::aligned_alloc(4096, block_size)), &std::free);
  if (!buf) return "cannot allocate the read buffer";
  for (;;) {
    ssize_t const n = sys::read(fd, buf.get(), block_size);
    if (n < 0) return errno_text(fd, static_cast<int>(-n));
    if (n == 0) return "";
    clock.tick();
    r.bytes += static_cast<std::uint64_t>(n);
    count(progress, n);
  }
}

}  // namespace

void add_sink_command(CLI::App& app, sink_command& s) {
  s.app = app.add_subcommand("sink", "Consume standard input like pv -q >/dev/null, then report bytes, seconds, rate");
  auto* splice = s.app->add_flag("--splice", s.splice,
                                 "splice(2) the pipe into /dev/null: no copy, pages dropped, like pv (default)");
  s.app->add_flag("--read", s.read, "read(2) into a buffer: one copy per byte, like cat >/dev/null")->excludes(splice);
  s.app->add_option("--block-size", s.block_size, "--read's buffer size (default 128K, like cat)")
      ->type_name("N")
      ->check(size_check(1, std::uint64_t{1} << 30, "must be from 1 to 1G"));
  add_json_option(*s.app, s.json, "--json",
                  "Also write the report as JSON to FILE (with the version, command line and start time); "
                  "'-' or no FILE: standard output");
  s.app->add_flag("-q,--quiet", s.quiet, "No report on stderr (errors and notes still are)");
  s.app->add_flag("--progress", s.progress,
                  "Show a live line on stderr (bytes, elapsed, rate) as the streams do; --progress=WHEN: auto "
                  "(plain --progress: when stderr is a terminal), force (always) or never; numeric: the bytes so "
                  "far, one number a line, as pv -n");
  s.app->footer(std::string(kSinkFooter) + "\n\n" + kSizeHelp);
}

sink_report consume(int fd, bool use_splice, std::size_t block_size, std::FILE* note, progress_counter* progress) {
  sink_report r;
  first_byte_clock clock;
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    r.method = use_splice ? "splice" : "read";
    r.error = errno == EBADF ? "standard input is closed" : errno_text(fd, errno);
    return r;
  }
  if (use_splice && !S_ISFIFO(st.st_mode)) {
    if (note) std::fprintf(note, "fizzgen sink: standard input is not a pipe: reading it with read(2)\n");
    use_splice = false;
  }
  int devnull = -1;
  if (use_splice) {
    devnull = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (devnull < 0) {
      if (note)
        std::fprintf(note, "fizzgen sink: cannot open /dev/null (%s): reading with read(2)\n", std::strerror(errno));
      use_splice = false;
    }
  }
  if (use_splice) {
    r.method = "splice";
    for (;;) {
      ssize_t const n = sys::splice(fd, nullptr, devnull, nullptr, kSpliceMax, SPLICE_F_MOVE);
      if (n == -EINVAL && r.bytes == 0) {
        // This kernel or this pipe refuses splice: read instead.
        if (note)
          std::fprintf(note, "fizzgen sink: splice refused (%s): reading with read(2)\n", std::strerror(EINVAL));
        use_splice = false;
        break;
      }
      if (n < 0) {
        r.error = errno_text(fd, static_cast<int>(-n));
        break;
      }
      if (n == 0) break;
      clock.tick();
      r.bytes += static_cast<std::uint64_t>(n);
      count(progress, n);
    }
    ::close(devnull);
  }
  if (!use_splice) {
    r.method = "read";
    r.error = read_all(fd, block_size, r, clock, progress);
  }
  r.seconds = clock.seconds();
  return r;
}

int run_sink(sink_command const& s) {
  std::uint64_t const block = parse_size("--block-size", s.block_size);  // 1..1G: size_check
  // Round up to whole pages for the aligned allocation.
  std::size_t const block_size = static_cast<std::size_t>((block + 4095) / 4096 * 4096);
  bool const show_progress = want_progress(s.progress, STDERR_FILENO);  // a bad WHEN: usage error
  json_report json_out(s.json);  // opened now: a path that cannot be written fails before reading
  progress_counter counter;
  std::optional<progress_display> display;
  if (show_progress)
    display.emplace(counter, STDERR_FILENO, std::stop_token{}, progress_total{},
                    progress_style{progress_style_for(s.progress).numeric, false});
  sink_report const r = consume(STDIN_FILENO, !s.read, block_size, stderr, display ? &counter : nullptr);
  if (display) display->finish();  // before the report, which would otherwise share its line
  double const rate = r.seconds > 0 ? static_cast<double>(r.bytes) / kGiB / r.seconds : 0;
  if (!s.quiet)
    std::fprintf(stderr, "fizzgen sink: %s (%s) in %.3f s = %s (%s)\n",
                 human_bytes(static_cast<double>(r.bytes)).c_str(), counted(r.bytes, "byte").c_str(), r.seconds,
                 human_rate(r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds : 0).c_str(), r.method.c_str());
  // Lines are not counted: spliced pages are never seen, and --read must cost what cat costs.
  std::string const unwritten = json_out.write({{"status", r.error.empty() ? "ok" : "failed"},
                                                {"bytes", r.bytes},
                                                {"lines", nullptr},
                                                {"seconds", r.seconds},
                                                {"gib_per_second", rate},
                                                {"method", r.method},
                                                {"ok", r.error.empty()},
                                                {"error", r.error}});
  if (!unwritten.empty()) {
    std::fprintf(stderr, "fizzgen sink: %s\n", unwritten.c_str());
    return 1;
  }
  if (!r.error.empty()) {
    std::fprintf(stderr, "fizzgen sink: %s\n", r.error.c_str());
    return 1;
  }
  return 0;
}

}  // namespace fizzgen::cli
