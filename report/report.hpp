#pragma once
// One convention for every JSON report (--json on the stream commands, `sink` and `bench`):
// `--json FILE`, where '-' (or no FILE) is standard output; the file is opened before the run, so
// that a path that cannot be written is a usage error before anything runs; and every report
// starts with the same members: fizzgen version, command line, start time, then its own, and a
// status that says how the run ended.

#include <cstdio>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

namespace fizzgen::cli {

using json = nlohmann::ordered_json;

/// Remembers argv and the time for every report; once, at start-up.
void note_invocation(int argc, char const* const* argv);

/// {"fizzgen_version": "0.1.0", "command_line": ["fizzgen", ...], "start_time": "2026-12-01T16:00:00Z"}
json report_header();

/// A report file that cannot be opened: "FILE: reason", a usage error (exit 2) before any run.
struct unwritable_report : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Where a report goes, opened at once.
class json_report {
 public:
  /// path "": no report; "-": standard output; else FILE, created or truncated now. Throws
  /// unwritable_report when it cannot be opened.
  explicit json_report(std::string const& path);
  ~json_report();
  json_report(json_report const&) = delete;
  json_report& operator=(json_report const&) = delete;

  bool wanted() const noexcept { return file_ != nullptr; }
  bool to_stdout() const noexcept { return file_ == stdout; }
  /// Writes report_header() and then doc's members (on one line to standard output, indented in a
  /// file) and closes the file; "" or the error as coreutils words it ("FILE: No space left on device").
  /// Standard output's errors are left to close_stdout, which reports them once at the end.
  std::string write(json const& doc);

 private:
  std::string name_;
  std::FILE* file_ = nullptr;
};

}  // namespace fizzgen::cli
