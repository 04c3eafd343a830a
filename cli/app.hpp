#pragma once

namespace fizzgen::cli {

/// The whole command line tool: parses argv, runs the subcommand, returns the exit status
/// (0 done, 1 runtime failure or failed check, 2 usage error). May end the process with SIGPIPE
/// when the reader goes away, as GNU tools do.
int main(int argc, char** argv);

}  // namespace fizzgen::cli
