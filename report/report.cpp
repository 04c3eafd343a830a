#include "report/report.hpp"

#include <cerrno>
#include <cstring>
#include <ctime>
#include <vector>

#include "engine/plan.hpp"

#ifndef FIZZGEN_VERSION
#define FIZZGEN_VERSION "unknown"
#endif

namespace fizzgen::cli {
namespace {

std::vector<std::string> g_command_line;
std::time_t g_start = std::time(nullptr);

}  // namespace

void note_invocation(int argc, char const* const* argv) {
  g_command_line.assign(argv, argv + argc);
  g_start = std::time(nullptr);
}

json report_header() {
  return {{"fizzgen_version", FIZZGEN_VERSION}, {"command_line", g_command_line}, {"start_time", utc_text(g_start)}};
}

json_report::json_report(std::string const& path) {
  if (path.empty()) return;
  if (path == "-") {
    name_ = "standard output";
    file_ = stdout;
    return;
  }
  name_ = path;
  file_ = std::fopen(path.c_str(), "w");
  if (file_ == nullptr) throw unwritable_report(path + ": " + std::strerror(errno));
}

json_report::~json_report() {
  if (file_ != nullptr && file_ != stdout) std::fclose(file_);
}

std::string json_report::write(json const& doc) {
  if (file_ == nullptr) return "";
  json all = report_header();
  for (auto const& [key, value] : doc.items()) all[key] = value;
  // Arguments and messages need not be UTF-8: invalid bytes become U+FFFD instead of an exception.
  std::string const text = all.dump(file_ == stdout ? -1 : 2, ' ', false, json::error_handler_t::replace) + "\n";
  std::fwrite(text.data(), 1, text.size(), file_);
  if (file_ == stdout) {  // its errors are close_stdout's (cli/app.hpp), at the end, once
    file_ = nullptr;
    return "";
  }
  int const failed = std::fflush(file_) != 0 || std::ferror(file_) != 0 ? errno : 0;
  int const closed = std::fclose(file_) != 0 ? errno : 0;
  file_ = nullptr;
  int const err = failed != 0 ? failed : closed;
  return err == 0 ? "" : name_ + ": " + std::strerror(err);
}

}  // namespace fizzgen::cli
