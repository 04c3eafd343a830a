// Holes in `--reuse auto`: readers that forward (or park) our pages where fizzgen's inspections
// of /proc cannot see them — a forwarder that comes and goes between scans, a reader that parks
// pages in a pipe of its own and keeps only its read end, a forked child that parks pages, a
// process that takes the pipe after start-up (/proc/PID/fd/N, SCM_RIGHTS), a thread with a
// descriptor table of its own, a reader fizzgen may not inspect. Each pipeline runs with the
// default (auto) and with --reuse never, and must end with `fizzgen check` saying OK for exactly
// the bytes emitted: the parked pages are written out in their place in the stream (or they are
// its beginning), so the whole stream is verified. Each run is --threads 1, so that buffers come
// round in a fixed order and a hole shows every time.
//
// FIZZGEN_TEST_BINARY=/path/to/fizzgen runs them against another build (pipeline_harness.hpp).

#include <gtest/gtest.h>
#include <unistd.h>

#include <string>

#include "pipeline_harness.hpp"

namespace {

using namespace fizzgen_test;

constexpr std::uint64_t kBytes = std::uint64_t{64} << 20;

class Holes : public pipeline_test {
 protected:
  /// Runs `pipeline` with {GEN} replaced by fizzgen for kBytes at --threads 1 with --stats into
  /// gen.err, once with the default policy and once with --reuse never. Each run must exit 0
  /// and leave check.out (written by the pipeline's `fizzgen check`) saying OK for kBytes.
  void expect_verified(std::string const& pipeline, std::string const& gen_prefix = "") {
    for (char const* reuse : {"", " --reuse never"}) {
      sh("rm -f ./*.bin ./*.pid ./*.out ./*.err sock");
      std::string const gen = gen_prefix + "\"$F\" --bytes " + std::to_string(kBytes) + " --threads 1 --stats" + reuse;
      std::string body = pipeline;
      body.replace(body.find("{GEN}"), 5, gen);
      std::string const what = std::string("--reuse ") + (*reuse != '\0' ? "never" : "auto") + ":\n  " + body;
      outcome const o = sh("set -o pipefail; " + body, scaled(30s));
      EXPECT_EQ(o.status, 0) << what << "\nstderr: " << o.err << "\ncheck: " << file("check.out");
      EXPECT_TRUE(check_ok(file("check.out"), kBytes))
          << what << "\nstderr: " << o.err << "\nfizzgen --stats: " << file("gen.err");
    }
  }
};

// Hole 1: pv, started a second in, splices the first 40000 bytes into its own output pipe and
// exits before a scan sees it; cat drains the rest. The 40000 bytes wait a second in pv's pipe
// while fizzgen goes through its buffers, then go first into the stream that is checked.
TEST_F(Holes, ForwarderThatComesAndGoesBetweenScans) {
  expect_verified(
      "{GEN} 2>gen.err | { sleep 1; pv -q -S -s 40000 <&0 | { sleep 1; cat >head.bin; } & sleep 0.3; cat >rest.bin; "
      "wait; } && cat head.bin rest.bin | \"$F\" check >check.out 2>&1");
}

// Hole 2: a reader that splices 256 KiB of our pipe into a pipe of its own, closes that pipe's
// write end and keeps the read end, reads the rest, and at the end reads the parked bytes back
// into their place: once at the start of the stream, once after 3 MB it read(2) first.
TEST_F(Holes, ReaderParkingPagesInAPipeItKeepsOnlyTheReadEndOf) {
  expect_verified("{GEN} 2>gen.err | \"$PR\" -d 500000 -n 262144 >out.bin && \"$F\" check <out.bin >check.out 2>&1");
  expect_verified(
      "{GEN} 2>gen.err | \"$PR\" -r 3000000 -d 300000 -n 262144 >out.bin && \"$F\" check <out.bin >check.out 2>&1");
}

// Hole 3: a plain reader (read(2) only, nothing else open) forks after 3 MB; the child, which
// inherits the read end, at once creates a pipe and parks 256 KiB there, closes our pipe, and
// writes the parked bytes into their place once the parent has read the rest.
TEST_F(Holes, ForkedChildParkingPages) {
  expect_verified(
      "{GEN} 2>gen.err | \"$PR\" -r 3000000 -d 300000 -n 262144 -f >out.bin && \"$F\" check <out.bin >check.out "
      "2>&1");
}

// Hole 4: a process that was never a reader of the pipe takes it half a second in, parks 256 KiB
// in a pipe of its own and lets go of ours. The reader (splice_forwarder into a file) read(2)s
// 3 MB, pauses for a second while the pipe holds the next MiB, of which the grabber takes the
// first 256 KiB, then takes the rest. {SPLICED} puts the grabbed bytes back in their place and
// checks the whole stream.
constexpr char const* kSpliced =
    "{ head -c 3000000 rest.bin; cat head.bin; tail -c +3000001 rest.bin; } | \"$F\" check >check.out 2>&1";

std::string spliced(std::string pipeline) { return pipeline.replace(pipeline.find("{SPLICED}"), 9, kSpliced); }

// Hole 4, by opening /proc/PID/fd/1 of fizzgen.
TEST_F(Holes, ProcessTakingThePipeThroughTheWritersProcFd) {
  expect_verified(spliced(
      "\"$PG\" -P f.pid:1 -d 500000 -n 262144 >head.bin & g=$!; { echo $BASHPID >f.pid; exec {GEN} 2>gen.err; } | "
      "\"$SF\" -r 3000000 -d 1000000 >rest.bin && kill -USR1 $g && wait $g && {SPLICED}"));
}

// Hole 4, by opening /proc/PID/fd/0 of the reader.
TEST_F(Holes, ProcessTakingThePipeThroughTheReadersProcFd) {
  expect_verified(spliced(
      "\"$PG\" -P r.pid:0 -d 500000 -n 262144 >head.bin & g=$!; {GEN} 2>gen.err | \"$SF\" -r 3000000 -d 1000000 "
      ">rest.bin & echo $! >r.pid; wait $! && kill -USR1 $g && wait $g && {SPLICED}"));
}

// Hole 4, the descriptor received over a unix socket (SCM_RIGHTS) from a process that held the
// pipe beside the reader without reading, closed its socket at once and exited.
TEST_F(Holes, ProcessReceivingThePipeOverAUnixSocket) {
  expect_verified(spliced(
      "\"$PG\" -l sock -n 262144 >head.bin & g=$!; {GEN} 2>gen.err | { \"$SD\" -d 500000 sock & exec \"$SF\" -r "
      "3000000 -d 1000000 >rest.bin; } && kill -USR1 $g && wait $g && {SPLICED}"));
}

// Hole 5: a thread that unshare(CLONE_FILES)s forwards through 24 pipes of its own (12 MiB of our
// pages waiting 20 ms a round, more than fizzgen's buffers); /proc/PID/fd shows only stdin and
// stderr.
TEST_F(Holes, ThreadWithADescriptorTableOfItsOwn) {
  expect_verified("{GEN} 2>gen.err | \"$UF\" -n 24 -w 20000 | \"$F\" check >check.out 2>&1");
}

// Hole 6: fizzgen runs as nobody; a harmless reader it can inspect (sleep, as nobody) holds the
// pipe beside a forwarder it may not inspect (root's, then uid 65533's) that holds 12 MiB of our
// pages in pipes of its own. (As root with CAP_SYS_PTRACE fizzgen could inspect every process.)
TEST_F(Holes, ForwarderFizzgenMayNotInspect) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root, to run processes as other users";
  std::string const as_nobody = "setpriv --reuid=65534 --regid=65534 --clear-groups ";
  outcome const probe = sh(as_nobody + "\"$F\" --version >/dev/null");
  if (probe.status != 0) GTEST_SKIP() << "setpriv missing, or nobody cannot run $F: " << probe.err;
  for (std::string const forwarder : {"", "setpriv --reuid=65533 --regid=65533 --clear-groups "}) {
    SCOPED_TRACE(forwarder.empty() ? "forwarder as root" : "forwarder as uid 65533");
    expect_verified("{GEN} 2>gen.err | { " + as_nobody + "sleep 30 & s=$!; " + forwarder +
                        "\"$SF\" -p -n 24 -w 20000 | \"$F\" check >check.out 2>&1; r=$?; kill $s; wait $s "
                        "2>/dev/null; exit $r; }",
                    as_nobody);
  }
}

}  // namespace
