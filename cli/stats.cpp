#include "cli/stats.hpp"

#include "cli/units.hpp"
#include "cli/usage.hpp"

namespace fizzgen::cli {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

double rate(std::uint64_t bytes, double seconds) {
  return seconds > 0 ? static_cast<double>(bytes) / kGiB / seconds : 0;
}

char const* status_name(emit_status s) {
  switch (s) {
    case emit_status::ok:
      return "ok";
    case emit_status::reader_gone:
      return "reader_gone";
    case emit_status::failed:
      return "failed";
  }
  return "?";
}

/// JSON string escaping for the few free-text fields (error messages).
std::string quoted(std::string const& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      continue;
    }
    out += c;
  }
  return out + "\"";
}

/// "process created 3, still in the pipe 1" between prefix and suffix; "" when there are none.
std::string taint_list(worker_stats const& w, char const* prefix, char const* suffix) {
  std::string list;
  for (std::size_t i = 0; i < w.discarded_because.size(); ++i)
    if (w.discarded_because[i] != 0)
      list += (list.empty() ? "" : ", ") + std::string(to_string(static_cast<taint>(i))) + " " +
              std::to_string(w.discarded_because[i]);
  return list.empty() ? list : prefix + list + suffix;
}

/// The same as JSON members: "process created": 3, ...
std::string taint_json(worker_stats const& w) {
  std::string members;
  for (std::size_t i = 0; i < w.discarded_because.size(); ++i)
    if (w.discarded_because[i] != 0)
      members += (members.empty() ? "" : ", ") + quoted(std::string(to_string(static_cast<taint>(i)))) + ": " +
                 std::to_string(w.discarded_because[i]);
  return members;
}

/// Why the pipe is smaller than --pipe-size asked, "" when it is not.
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
      setup.spin ? " (spinning)" : "", setup.pipe_size / 1024, pipe_note(setup).c_str(), setup.reuse.c_str(),
      r.huge_pages_kb);
  if (!setup.sizing.empty()) std::fprintf(out, "  sizing: %s\n", setup.sizing.c_str());
  if (setup.threads_asked > r.threads)
    std::fprintf(out, "  threads: %u asked for, %u at work: more would leave the reader no CPU of its own\n",
                 setup.threads_asked, r.threads);
  for (std::size_t i = 0; i < r.workers.size(); ++i) {
    worker_stats const& w = r.workers[i];
    std::fprintf(out,
                 "  worker %zu (cpu %d): %s in %s; fill %.3f s, wait %.3f s, emit %.3f s; "
                 "refills in place %llu, on fresh pages %llu%s\n",
                 i, w.cpu, human_bytes(static_cast<double>(w.bytes)).c_str(), counted(w.chunks, "chunk").c_str(),
                 w.fill_seconds, w.wait_seconds, w.emit_seconds, static_cast<unsigned long long>(w.reused),
                 static_cast<unsigned long long>(w.discarded), taint_list(w, " (", ")").c_str());
  }
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

bool write_stats_json(std::string const& path, run_setup const& setup, run_report const& r) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (f == nullptr) return false;
  std::fprintf(f,
               "{\n  \"bytes\": %llu,\n  \"seconds\": %.9f,\n  \"gib_per_second\": %.6f,\n  \"mode\": %s,\n"
               "  \"threads\": %u,\n  \"pinned\": %u,\n  \"buffers_per_worker\": %u,\n  \"arch\": %s,\n"
               "  \"output_path\": %s,\n  \"spin\": %s,\n  \"reuse\": %s,\n  \"pipe_size\": %zu,\n  \"sizing\": %s,\n"
               "  \"huge_pages\": %s,\n  \"huge_pages_kb\": %zu,\n  \"status\": %s,\n  \"error\": %s,\n"
               "  \"ended\": %s,\n  \"rate\": %llu,\n  \"duration\": %.9f,\n  \"piece_bytes\": %zu,\n"
               "  \"write_size\": %s,\n  \"seed\": %s,\n  \"workers\": [",
               static_cast<unsigned long long>(r.bytes), r.seconds, rate(r.bytes, r.seconds),
               quoted(setup.mode).c_str(), r.threads, r.pinned, r.buffers_per_worker, quoted(setup.arch).c_str(),
               quoted(setup.output_path).c_str(), setup.spin ? "true" : "false", quoted(setup.reuse).c_str(),
               setup.pipe_size, quoted(setup.sizing).c_str(), r.huge_pages_kb > 0 ? "true" : "false", r.huge_pages_kb,
               quoted(status_name(r.status)).c_str(), quoted(r.error).c_str(),
               quoted(std::string(to_string(r.ended))).c_str(), static_cast<unsigned long long>(setup.rate),
               setup.duration_seconds, r.pace_piece_bytes, quoted(setup.write_size).c_str(),
               setup.seeded ? std::to_string(setup.seed).c_str() : "null");
  for (std::size_t i = 0; i < r.workers.size(); ++i) {
    worker_stats const& w = r.workers[i];
    std::fprintf(f,
                 "%s\n    {\"cpu\": %d, \"bytes\": %llu, \"chunks\": %llu, \"fill_seconds\": %.9f, "
                 "\"wait_seconds\": %.9f, \"emit_seconds\": %.9f, \"wait_retries\": %llu, \"reused\": %llu, "
                 "\"discarded\": %llu, \"discarded_because\": {%s}}",
                 i == 0 ? "" : ",", w.cpu, static_cast<unsigned long long>(w.bytes),
                 static_cast<unsigned long long>(w.chunks), w.fill_seconds, w.wait_seconds, w.emit_seconds,
                 static_cast<unsigned long long>(w.wait_retries), static_cast<unsigned long long>(w.reused),
                 static_cast<unsigned long long>(w.discarded), taint_json(w).c_str());
  }
  std::fprintf(f, "\n  ]\n}\n");
  return std::fclose(f) == 0;
}

}  // namespace fizzgen::cli
