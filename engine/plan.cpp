#include "engine/plan.hpp"

#include <sys/utsname.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/cpus.hpp"
#include "engine/sizing.hpp"

namespace fizzgen {
namespace {

constexpr char const* kHeader = "fizzgen plan 1";

machine_identity read_machine() {
  machine_identity m;
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);)
    if (line.rfind("model name", 0) == 0) {
      m.cpu = line.substr(line.find(':') + 2);
      break;
    }
  utsname u{};
  if (::uname(&u) == 0) m.kernel = u.release;
  m.l2_bytes = topology().caches.l2_bytes;
  m.l3_bytes = topology().caches.l3_bytes;
  m.pipe_max = pipe_max_size();
  for (int cpu : topology().cpus) {
    if (!m.cpus.empty()) m.cpus += ',';
    m.cpus += std::to_string(cpu);
  }
  return m;
}

}  // namespace

machine_identity const& this_machine() {
  static machine_identity const m = read_machine();
  return m;
}

std::string format_plan(stored_plan const& p) {
  std::ostringstream out;
  out << kHeader << "\n"
      << "cpu " << p.machine.cpu << "\n"
      << "kernel " << p.machine.kernel << "\n"
      << "l2_bytes " << p.machine.l2_bytes << "\n"
      << "l3_bytes " << p.machine.l3_bytes << "\n"
      << "pipe_max " << p.machine.pipe_max << "\n"
      << "cpus " << p.machine.cpus << "\n"
      << "chunk_bytes " << p.chunk_bytes << "\n"
      << "pipe_bytes " << p.pipe_bytes << "\n"
      << "threads " << p.threads << "\n"
      << "gib_per_second " << p.gib_per_second << "\n"
      << "model_gib_per_second " << p.model_gib_per_second << "\n"
      << "tuned " << p.tuned << "\n";
  return out.str();
}

std::optional<stored_plan> parse_plan(std::string const& text) {
  std::istringstream in(text);
  std::string line;
  if (!std::getline(in, line) || line != kHeader) return std::nullopt;
  stored_plan p;
  unsigned seen = 0;
  while (std::getline(in, line)) {
    std::size_t const space = line.find(' ');
    std::string const key = line.substr(0, space);
    std::string const value = space == std::string::npos ? "" : line.substr(space + 1);
    auto const number = [&](auto& field) {
      std::istringstream v(value);
      if (!(v >> field)) throw std::invalid_argument(key);
    };
    try {
      if (key == "cpu")
        p.machine.cpu = value;
      else if (key == "kernel")
        p.machine.kernel = value;
      else if (key == "l2_bytes")
        number(p.machine.l2_bytes);
      else if (key == "l3_bytes")
        number(p.machine.l3_bytes);
      else if (key == "pipe_max")
        number(p.machine.pipe_max);
      else if (key == "cpus")
        p.machine.cpus = value;
      else if (key == "chunk_bytes")
        number(p.chunk_bytes);
      else if (key == "pipe_bytes")
        number(p.pipe_bytes);
      else if (key == "threads")
        number(p.threads);
      else if (key == "gib_per_second")
        number(p.gib_per_second);
      else if (key == "model_gib_per_second")
        number(p.model_gib_per_second);
      else if (key == "tuned")
        p.tuned = value;
      else
        continue;
    } catch (std::invalid_argument const&) {
      return std::nullopt;
    }
    ++seen;
  }
  // Sizes the engine would refuse make the whole plan unreadable.
  if (seen < 12 || p.threads == 0 || p.threads > 1024 || p.chunk_bytes < 4096 || p.chunk_bytes > (1u << 28) ||
      p.pipe_bytes < 4096 || p.pipe_bytes > (1u << 30))
    return std::nullopt;
  return p;
}

std::string differences(machine_identity const& a, machine_identity const& b) {
  std::string out;
  auto const differ = [&](bool d, char const* what) {
    if (d) out += (out.empty() ? "" : ", ") + std::string(what);
  };
  differ(a.cpu != b.cpu, "CPU model");
  differ(a.kernel != b.kernel, "kernel");
  differ(a.l2_bytes != b.l2_bytes, "L2 size");
  differ(a.l3_bytes != b.l3_bytes, "L3 size");
  differ(a.pipe_max != b.pipe_max, "fs.pipe-max-size");
  differ(a.cpus != b.cpus, "CPUs allowed");
  return out;
}

std::string plan_path() {
  if (char const* explicit_path = std::getenv("FIZZGEN_PLAN")) return explicit_path;
  if (char const* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && xdg[0] == '/')
    return std::string(xdg) + "/fizzgen/plan";
  if (char const* home = std::getenv("HOME"); home != nullptr && home[0] == '/')
    return std::string(home) + "/.cache/fizzgen/plan";
  return "";
}

plan_lookup find_plan(std::string const& path, machine_identity const& machine) {
  plan_lookup found;
  if (path.empty()) return found;
  std::ifstream in(path);
  if (!in) return found;  // none stored: the model decides, nothing to say
  std::ostringstream text;
  text << in.rdbuf();
  std::optional<stored_plan> p = parse_plan(text.str());
  if (!p) {
    found.note = "stored plan " + path + " ignored: not a plan this version reads (run fizzgen tune again)";
    return found;
  }
  if (std::string const d = differences(p->machine, machine); !d.empty()) {
    found.note = "stored plan " + path + " ignored: made where the " + d + " differed (run fizzgen tune again)";
    return found;
  }
  found.note = "stored plan " + path + " (fizzgen tune, " + p->tuned + ")";
  found.plan = std::move(p);
  return found;
}

bool save_plan(std::string const& path, stored_plan const& p, std::string& error) {
  std::error_code ec;
  std::filesystem::path const file(path);
  if (file.has_parent_path()) std::filesystem::create_directories(file.parent_path(), ec);
  if (ec) {
    error = file.parent_path().string() + ": " + ec.message();
    return false;
  }
  // Written beside it and renamed: a stream starting meanwhile reads the old plan or the new one.
  std::string const partial = path + ".new";
  {
    std::ofstream out(partial, std::ios::trunc);
    out << format_plan(p);
    out.flush();
    if (!out) {
      error = partial + ": " + std::strerror(errno);
      return false;
    }
  }
  std::filesystem::rename(partial, path, ec);
  if (ec) {
    error = path + ": " + ec.message();
    return false;
  }
  return true;
}

std::string utc_text(std::time_t t) {
  std::tm tm{};
  ::gmtime_r(&t, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

}  // namespace fizzgen
