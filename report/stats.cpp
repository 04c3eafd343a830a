#include "report/stats.hpp"

#include <algorithm>
#include <csignal>

#include "report/units.hpp"

namespace fizzgen::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double rate(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / kGiB / seconds : 0;
}

/// "process created 3, still in the pipe 1" between prefix and suffix; "" when there are none.
std::string taint_list(taint_counts const& counts, char const* prefix, char const* suffix) {
  std::string list;
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] != 0)
      list +=
          (list.empty() ? "" : ", ") + std::string(to_string(static_cast<taint>(i))) + " " + std::to_string(counts[i]);
  return list.empty() ? list : prefix + list + suffix;
}

/// The same as JSON members: "process created": 3, ...
json taint_json(taint_counts const& counts) {
  json members = json::object();
  for (std::size_t i = 0; i < counts.size(); ++i)
    if (counts[i] != 0) members[std::string(to_string(static_cast<taint>(i)))] = counts[i];
  return members;
}

/// What --stats-json says of a thread on the reader's CPU, whatever its work.
json beside_the_reader(int cpu, helper_mode mode, std::uint64_t windows, std::uint64_t helped) {
  return json{{"cpu", cpu},
              {"mode", mode == helper_mode::automatic ? "auto" : "on"},
              {"windows", windows},
              {"windows_helped", helped}};
}

char const* signal_name(int signo) {
  switch (signo) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    case SIGHUP:
      return "SIGHUP";
    default:
      return "signal";
  }
}

/// Why the pipe is smaller than --pipe-size asked, "" when it is not.
/// How a thread on the reader's CPU was put to work: "at work in H of W timed windows of N chunks; "
/// with --helper auto, a word for --helper on.
std::string windows_worked(helper_mode mode, std::uint64_t helped, std::uint64_t windows, std::uint64_t chunks) {
  if (mode == helper_mode::automatic)
    return "at work in " + std::to_string(helped) + " of " + std::to_string(windows) + " timed windows of " +
           std::to_string(chunks) + " chunks; ";
  return mode == helper_mode::on ? "at work throughout (--helper on); " : "";
}

std::string pipe_note(run_setup const& setup) {
  if (setup.pipe_size == 0 || setup.pipe_size >= setup.pipe_size_asked) return "";
  return " (asked for " + std::to_string(setup.pipe_size_asked / 1024) +
         " KiB: the most this system allows is used, see fs.pipe-max-size)";
}

}  // namespace

void print_stats(std::FILE* out, run_setup const& setup, run_report const& r) {
  std::fprintf(out, "fizzgen: %s in %.3f s = %s (%s)\n", human_bytes(static_cast<double>(r.bytes)).c_str(), r.seconds,
               human_rate(r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds : 0).c_str(), setup.mode.c_str());
  std::fprintf(
      out,
      "  threads %u (pinned %u), %u buffers each, arch %s, output %s%s, pipe %zu KiB%s, reuse %s, huge pages %zu kB\n",
      r.threads, r.pinned, r.buffers_per_worker, setup.arch.c_str(), setup.output_path.c_str(),
      r.interleaved ? (setup.spin ? " (spinning, filling the next chunk while the pipe drains)"
                                  : " (filling the next chunk while the pipe drains)")
      : setup.spin  ? " (spinning)"
                    : "",
      setup.pipe_size / 1024, pipe_note(setup).c_str(), setup.reuse.c_str(), r.huge_pages_kb);
  if (!setup.sizing.empty()) std::fprintf(out, "  sizing: %s\n", setup.sizing.c_str());
  if (setup.threads_asked > r.threads)
    std::fprintf(out, "  threads: %u asked for, %u at work: more would share a CPU with a worker or the reader\n",
                 setup.threads_asked, r.threads);
  for (std::size_t i = 0; i < r.workers.size(); ++i) {
    worker_stats const& w = r.workers[i];
    std::fprintf(out,
                 "  worker %zu (cpu %d): %s in %s; fill %.3f s, wait %.3f s, emit %.3f s; "
                 "refills in place %llu, on fresh pages %llu%s\n",
                 i, w.cpu, human_bytes(static_cast<double>(w.bytes)).c_str(), counted(w.chunks, "chunk").c_str(),
                 w.fill_seconds, w.wait_seconds, w.emit_seconds, static_cast<unsigned long long>(w.reused),
                 static_cast<unsigned long long>(w.discarded), taint_list(w.discarded_because, " (", ")").c_str());
  }
  if (r.helper.ran) {
    std::uint64_t from_helper = 0, fresh = 0;
    for (worker_stats const& w : r.workers) {
      from_helper += w.from_helper;
      fresh += w.helper_fresh;
    }
    std::string const windows =
        windows_worked(r.helper.mode, r.helper.windows_helped, r.helper.windows, r.helper.window_chunks);
    std::fprintf(
        out,
        "  helper (cpu %d, SCHED_IDLE, beside the reader, %llu buffers): %sfilled %s ahead in %.3f s, %llu emitted, "
        "%llu filled too late; refills in place %llu, on fresh pages %llu (its own), given fresh pages by "
        "the worker %llu (asked %llu)\n",
        r.helper.cpu, static_cast<unsigned long long>(r.helper.buffers), windows.c_str(),
        counted(r.helper.filled + r.helper.late, "chunk").c_str(), r.helper.fill_seconds,
        static_cast<unsigned long long>(from_helper), static_cast<unsigned long long>(r.helper.late),
        static_cast<unsigned long long>(r.helper.reused), static_cast<unsigned long long>(r.helper.fresh),
        static_cast<unsigned long long>(fresh), static_cast<unsigned long long>(r.helper.asked_fresh));
  }
  if (!setup.idle_poll_why.empty()) std::fprintf(out, "  idle CPUs: %s\n", setup.idle_poll_why.c_str());
  std::fprintf(out, "  ended: %s", std::string(to_string(r.ended)).c_str());
  if (r.ended == run_end::duration) std::fprintf(out, " (--duration %.3f s)", setup.duration_seconds);
  if (setup.rate != 0)
    std::fprintf(out, "; --rate %llu bytes/s asked, %.0f achieved, at most %zu bytes per write",
                 static_cast<unsigned long long>(setup.rate),
                 r.seconds > 0 ? static_cast<double>(r.bytes) / r.seconds : 0.0, r.pace_piece_bytes);
  std::fputc('\n', out);
  std::string const seed = setup.seeded ? " --seed " + std::to_string(setup.seed) : "";
  auto const random = [](std::string const& spec) { return spec.rfind("random:", 0) == 0; };
  if (!setup.write_size.empty())
    std::fprintf(out, "  writes: --write-size %s%s\n", setup.write_size.c_str(),
                 random(setup.write_size) ? seed.c_str() : "");
  if (!setup.stall.empty())
    std::fprintf(out, "  pauses: --stall %s%s, %llu stalls\n", setup.stall.c_str(),
                 random(setup.stall) ? seed.c_str() : "", static_cast<unsigned long long>(r.stalls));
  if (setup.seeded && !random(setup.write_size) && !random(setup.stall)) std::fprintf(out, "  seed:%s\n", seed.c_str());
  if (!setup.burst.empty())
    std::fprintf(out, "  bursts: --burst %s, %llu windows of silence\n", setup.burst.c_str(),
                 static_cast<unsigned long long>(r.silences));
}

std::string run_status(run_report const& r, int signo) {
  if (r.status == emit_status::failed) return "failed";
  if (r.status == emit_status::reader_gone) return "reader_gone";
  return r.stopped || signo != 0 ? "interrupted" : "ok";
}

json stats_json(run_setup const& setup, run_report const& r, std::uint64_t lines, int signo) {
  json helper = nullptr;
  if (r.helper.ran) {
    helper = beside_the_reader(r.helper.cpu, r.helper.mode, r.helper.windows, r.helper.windows_helped);
    helper["buffers"] = r.helper.buffers;
    helper["filled"] = r.helper.filled;
    helper["late"] = r.helper.late;
    helper["reused"] = r.helper.reused;
    helper["fresh"] = r.helper.fresh;
    helper["asked_fresh"] = r.helper.asked_fresh;
    helper["fill_seconds"] = r.helper.fill_seconds;
  }
  json workers = json::array();
  for (worker_stats const& w : r.workers)
    workers.push_back({{"cpu", w.cpu},
                       {"bytes", w.bytes},
                       {"chunks", w.chunks},
                       {"fill_seconds", w.fill_seconds},
                       {"wait_seconds", w.wait_seconds},
                       {"emit_seconds", w.emit_seconds},
                       {"wait_retries", w.wait_retries},
                       {"reused", w.reused},
                       {"discarded", w.discarded},
                       {"discarded_because", taint_json(w.discarded_because)},
                       {"from_helper", w.from_helper},
                       {"helper_fresh", w.helper_fresh}});
  return {{"status", run_status(r, signo)},
          {"signal", signo != 0 ? json(signal_name(signo)) : json(nullptr)},
          {"bytes", r.bytes},
          {"lines", lines},
          {"seconds", r.seconds},
          {"gib_per_second", rate(r.bytes, r.seconds)},
          {"mode", setup.mode},
          {"threads", r.threads},
          {"threads_asked", std::max(setup.threads_asked, r.threads)},
          {"pinned", r.pinned},
          {"buffers_per_worker", r.buffers_per_worker},
          {"arch", setup.arch},
          {"output_path", setup.output_path},
          {"spin", setup.spin},
          {"interleaved", r.interleaved},
          {"reuse", setup.reuse},
          {"pipe_size", setup.pipe_size},
          {"sizing", setup.sizing},
          {"huge_pages", r.huge_pages_kb > 0},
          {"huge_pages_kb", r.huge_pages_kb},
          {"error", r.error},
          {"ended", std::string(to_string(r.ended))},
          {"rate", setup.rate},
          {"duration", setup.duration_seconds},
          {"piece_bytes", r.pace_piece_bytes},
          {"write_size", setup.write_size},
          {"seed", setup.seeded ? json(setup.seed) : json(nullptr)},
          {"stall", setup.stall},
          {"stalls", r.stalls},
          {"burst", setup.burst},
          {"silences", r.silences},
          {"workers", workers},
          {"helper", helper},
          {"idle_poll", {{"held", setup.idle_poll}, {"why", setup.idle_poll_why}}}};
}

}  // namespace fizzgen::cli
