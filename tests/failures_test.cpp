// What goes wrong around fizzgen, and what it must do then: readers that leave early, stop, or
// forward; signals; file size limits and full disks; a refused pipe size; no huge pages; a bad
// fd 1; a narrow CPU set; poisoned buffers. Every command runs under a deadline (pipeline_harness).

#include <gtest/gtest.h>
#include <sched.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "pipeline_harness.hpp"

namespace {

using namespace fizzgen_test;

class Failures : public pipeline_test {
 protected:
  /// "$s $e" written by bash's $EPOCHREALTIME around a command: e - s in seconds.
  double elapsed(std::string const& name) {
    std::string const t = file(name);
    std::size_t const gap = t.find(' ');
    if (gap == std::string::npos) {
      ADD_FAILURE() << name << ": " << t;
      return 1e9;
    }
    return std::stod(t.substr(gap + 1)) - std::stod(t.substr(0, gap));
  }
};

std::vector<int> allowed_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  std::vector<int> cpus;
  if (sched_getaffinity(0, sizeof set, &set) != 0) return cpus;
  for (int c = 0; c < CPU_SETSIZE; ++c)
    if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// ---- the reader goes away -----------------------------------------------------------------------

TEST_F(Failures, ReaderExitsAfterNBytes) {
  for (char const* n : {"0", "1", "4096", "4194304"}) {
    for (char const* gen : {"\"$F\" --threads 1", "\"$F\" --threads 3", "\"$F\" --rule 2:Fizz --rule 7:Quux",
                            "\"$F\" yes", "\"$F\" --reuse never --threads 2"}) {
      std::string const what = std::string(gen) + " | head -c " + n;
      outcome const o = sh("{ s=$EPOCHREALTIME; " + std::string(gen) +
                               " 2>gen.err; echo $? >gen.status; echo \"$s $EPOCHREALTIME\" >gen.time; } | head -c " +
                               n + " >out.bin",
                           scaled(20s));
      EXPECT_EQ(o.status, 0) << what << ": " << o.err;
      EXPECT_EQ(file("out.bin").size(), std::stoull(n)) << what;
      // Killed by SIGPIPE like GNU tools (a quiet 0 would do too), quickly and silently.
      std::string const status = file("gen.status");
      EXPECT_TRUE(status == "141\n" || status == "0\n") << what << ": status " << status;
      EXPECT_EQ(file("gen.err"), "") << what;
      EXPECT_LT(elapsed("gen.time"), kSanitized ? 3.0 : 1.0) << what;
    }
  }
  // What head took is right.
  outcome const o = sh("\"$F\" --threads 3 | head -c 4194304 | \"$F\" check");
  EXPECT_TRUE(check_ok(o.out, 4194304)) << o.err;
}

// A reader stopped for 2 s (the pipe fills, workers block or spin) and continued: still exact.
TEST_F(Failures, ReaderStoppedAndContinued) {
  struct variant {
    char const* what;
    std::string reader_to_check;  ///< runs the reader (pid in reader.pid) and check into check.out
    std::string flowing;          ///< holds once 1 MiB has come through the reader
  };
  // Readers slow enough (pv -L, read_copy -s) to be caught mid-stream: into check (fresh pages),
  // into a file (in place). Mid-stream is an event: 1 MiB has come out of the reader, into check
  // (which reads with read(2), counted in /proc/PID/io; pv splices, which is not counted) or into
  // the file, or into read_copy's own reads.
  std::string const check_pid = "bash -c 'echo $$ >check.pid; exec \"$F\" check' >check.out";
  for (variant const& v :
       {variant{"pv | check", "bash -c 'echo $$ >reader.pid; exec pv -q -L 32m' | " + check_pid,
                "test -s check.pid && has_read $(cat check.pid) 1048576"},
        variant{"pv > file",
                "bash -c 'echo $$ >reader.pid; exec pv -q -L 32m' >out.bin && \"$F\" check <out.bin >check.out",
                "(( $(stat -c %s out.bin 2>/dev/null || echo 0) >= 1048576 ))"},
        variant{"read_copy | check", "\"$RC\" -i reader.pid -b 16384 -s 200 | \"$F\" check >check.out",
                "has_read $(cat reader.pid) 1048576"}}) {
    for (char const* threads : {"1", "3"}) {
      if (std::string(v.what) != "pv | check" && std::string(threads) == "1") continue;  // 2 s each: enough
      std::string const n = std::to_string(std::uint64_t{48} << 20);
      // The 2 s stop is what is tested: a sleep on purpose.
      std::string const cmd = "set -o pipefail; ( wait_for 20 test -s reader.pid && wait_for 20 eval '" + v.flowing +
                              "' && kill -STOP $(cat reader.pid) && echo stopped >stop.log; sleep 2; "
                              "kill -CONT $(cat reader.pid) ) & \"$F\" --bytes " +
                              n + " --threads " + threads + " --stats 2>gen.err | " + v.reader_to_check +
                              "; rc=$?; wait; exit $rc";
      outcome const o = sh(cmd, scaled(30s));
      std::string const what = std::string(v.what) + ", --threads " + threads;
      EXPECT_EQ(o.status, 0) << what << ": " << o.err << file("gen.err");
      EXPECT_EQ(file("stop.log"), "stopped\n") << what;
      EXPECT_TRUE(check_ok(file("check.out"), 48u << 20)) << what;
      EXPECT_GE(o.seconds, 2.0) << what << ": the reader was not stopped";
      sh("rm -f reader.pid check.pid stop.log check.out out.bin");
    }
  }
}

// ---- signals ------------------------------------------------------------------------------------

TEST_F(Failures, SigintAndSigtermEndTheRunWithinASecond) {
  for (char const* sig : {"INT", "TERM"}) {
    int const number = std::string(sig) == "INT" ? SIGINT : SIGTERM;
    // Mid-stream into a rate-limited reader, and blocked on the pipe of a stopped reader.
    for (bool stopped : {false, true}) {
      std::string const what = std::string("SIG") + sig + (stopped ? ", reader stopped" : ", reader reading");
      // The stopped reader's pipe fills in well under 0.2 s; a writer blocked on it (or polling
      // it) shows nowhere outside the process, so that pause stays a sleep.
      std::string const stop = stopped ? "kill -STOP $(cat reader.pid); sleep 0.2; " : "";
      std::string const cont = stopped ? "kill -CONT $(cat reader.pid) 2>/dev/null; " : "";
      // Mid-stream: once 1 MiB has come through the reader into check (read(2), in /proc/PID/io).
      std::string const cmd =
          "( wait_for 20 test -s gen.pid -a -s reader.pid -a -s check.pid && "
          "wait_for 20 has_read $(cat check.pid) 1048576 && " +
          stop + "echo $EPOCHREALTIME >kill.time; kill -" + sig +
          " $(cat gen.pid); "
          "wait_for 20 gone $(cat gen.pid); echo $EPOCHREALTIME >gone.time; " +
          cont +
          ") & "
          "{ bash -c 'echo $$ >gen.pid; exec \"$F\" --threads 3' 2>gen.err; echo $? >gen.status; } | "
          "bash -c 'echo $$ >reader.pid; exec pv -q -L 64m' | bash -c 'echo $$ >check.pid; exec \"$F\" check' "
          ">check.out; wait";
      outcome const o = sh(cmd, scaled(20s));
      ASSERT_FALSE(o.timed_out) << what;
      double const took = std::stod(file("gone.time")) - std::stod(file("kill.time"));
      EXPECT_LT(took, kSanitized ? 3.0 : 1.0) << what;
      EXPECT_EQ(file("gen.status"), std::to_string(128 + number) + "\n") << what << ": " << file("gen.err");
      EXPECT_EQ(file("gen.err"), "") << what;
      // Whatever was emitted before the signal is a correct prefix.
      EXPECT_NE(file("check.out").find("OK: "), std::string::npos) << what << ": " << file("check.out") << o.err;
      sh("rm -f gen.pid reader.pid check.pid kill.time gone.time gen.status gen.err check.out");
    }
  }
}

// ---- output that fills up -----------------------------------------------------------------------

TEST_F(Failures, FileSizeLimit) {
  // ulimit -f counts 1024-byte blocks: the file may grow to 1 MiB.
  for (char const* gen : {"--threads 1", "--threads 3", "yes"}) {
    for (char const* redirect : {">", ">>"}) {
      std::string const what = std::string(gen) + " " + redirect;
      outcome const o = sh("ulimit -f 1024; \"$F\" " + std::string(gen) + " --bytes 10M " + redirect + " out.bin");
      EXPECT_EQ(o.status, 1) << what << ": " << o.err;
      EXPECT_EQ(count_lines(o.err), 1u) << what << ": " << o.err;
      EXPECT_NE(o.err.find(std::strerror(EFBIG)), std::string::npos) << what << ": " << o.err;
      EXPECT_EQ(o.err.rfind("fizzgen: ", 0), 0u) << what << ": " << o.err;
      EXPECT_LE(file("out.bin").size(), 1u << 20) << what;
      if (std::string(gen) != "yes") {
        outcome const c = sh("\"$F\" check <out.bin");
        EXPECT_NE(c.out.find("OK: "), std::string::npos) << what << ": what was written is right: " << c.err;
      }
      sh("rm -f out.bin");
    }
  }
}

TEST_F(Failures, FullFilesystem) {
  outcome const m = sh("mkdir -p mnt && mount -t tmpfs -o size=1m fizzgen_test mnt");
  if (m.status != 0) GTEST_SKIP() << "cannot mount a tmpfs here: " << m.err;
  std::shared_ptr<void> const unmount(nullptr, [this](void*) { sh("umount mnt || umount -l mnt"); });
  for (char const* gen : {"--threads 1", "--threads 3", "yes"}) {
    for (char const* redirect : {">", ">>"}) {
      std::string const what = std::string(gen) + " " + redirect;
      outcome const o = sh("\"$F\" " + std::string(gen) + " --bytes 10M " + redirect + " mnt/out.bin");
      EXPECT_EQ(o.status, 1) << what << ": " << o.err;
      EXPECT_EQ(count_lines(o.err), 1u) << what << ": " << o.err;
      EXPECT_NE(o.err.find("No space left on device"), std::string::npos) << what << ": " << o.err;
      if (std::string(gen) != "yes") {
        outcome const c = sh("\"$F\" check <mnt/out.bin");
        EXPECT_NE(c.out.find("OK: "), std::string::npos) << what << ": what was written is right: " << c.err;
      }
      sh("rm -f mnt/out.bin");
    }
  }
  // Through a pipe and a reader that fills the disk: the reader fails, fizzgen goes quietly.
  outcome const o = sh("\"$F\" 2>gen.err | cat >mnt/out.bin");
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_EQ(file("gen.err"), "");
}

// ---- what the kernel refuses --------------------------------------------------------------------

TEST_F(Failures, PipeSizeRefused) {
  // As root the request may be granted (CAP_SYS_RESOURCE); as nobody above fs.pipe-max-size it is not.
  std::string const as_nobody = ::geteuid() == 0 ? "setpriv --reuid=65534 --regid=65534 --clear-groups " : "";
  if (!as_nobody.empty()) {
    outcome const probe = sh(as_nobody + "\"$F\" --count 1");
    if (probe.status != 0 || probe.out != "1\n")
      GTEST_SKIP() << "cannot run fizzgen as nobody (setpriv missing or the binary not reachable): " << probe.err;
  }
  for (char const* threads : {"1", "3"}) {
    outcome const o = sh("set -o pipefail; " + as_nobody + "\"$F\" --pipe-size 64M --bytes 64M --stats --threads " +
                         threads + " 2>gen.err | \"$RC\" -p granted.txt | \"$F\" check >check.out");
    std::string const stats = file("gen.err");
    ASSERT_EQ(o.status, 0) << o.err << stats;
    EXPECT_TRUE(check_ok(file("check.out"), 64u << 20));
    // The size the reader sees on its end is the one fizzgen reports, and not what was asked.
    std::uint64_t const granted = std::stoull(file("granted.txt"));
    EXPECT_NE(stats.find("pipe " + std::to_string(granted / 1024) + " KiB"), std::string::npos)
        << "granted " << granted << "\n"
        << stats;
    if (!as_nobody.empty()) {
      EXPECT_LT(granted, 64u << 20) << stats;
    }
  }
}

TEST_F(Failures, SmallAddressSpaceNamesWhatCouldNotBeHad) {
  // The sanitizers reserve terabytes of shadow memory: no ulimit -v leaves them room to start.
  if (kSanitized) GTEST_SKIP() << "ulimit -v and the sanitizers exclude each other";
  struct expect {
    std::string cmd;
    std::vector<std::string> starts;  ///< the message begins with one of these
  };
  for (auto const& e : {
           // 20 buffers of 4 MiB chunks (each with its slack in huge pages of its own) do not fit in 60 MiB.
           expect{"ulimit -v 60000; $F -n 10M -j 1 --buffers 20 --chunk-bytes 4M >/dev/null",
                  {"fizzgen: cannot allocate 20 buffers of "}},
           // 64 thread stacks of 8 MiB do not fit in 150 MiB; the workers already started allocate
           // their buffers meanwhile, so whichever runs out first is named (both were seen).
           expect{"ulimit -v 150000; ulimit -s 8192; $F -n 10M -j 64 --buffers 2 --chunk-bytes 4M >/dev/null",
                  {"fizzgen: cannot start thread ", "fizzgen: cannot allocate 2 buffers of "}},
       }) {
    outcome const o = sh(e.cmd);
    EXPECT_EQ(o.status, 1) << e.cmd << ": " << o.err;
    EXPECT_EQ(count_lines(o.err), 1u) << e.cmd << ": " << o.err;
    EXPECT_TRUE(
        std::any_of(e.starts.begin(), e.starts.end(), [&](std::string const& s) { return o.err.rfind(s, 0) == 0; }))
        << e.cmd << ": " << o.err;
    EXPECT_EQ(o.err.find("bad_alloc"), std::string::npos) << o.err;
  }
  outcome const o = sh("ulimit -v 60000; $F -n 10M -j 1 --buffers 20 --chunk-bytes 4M >/dev/null");
  EXPECT_NE(o.err.find(" MiB: Cannot allocate memory\n"), std::string::npos) << o.err;
}

TEST_F(Failures, StopsFromTwoFailuresAtOnceEndTheRun) {
  if (kSanitized) GTEST_SKIP() << "ulimit -v and the sanitizers exclude each other";
  // In 320 MB a thread start and some workers' buffers both fail, so the run is stopped twice at
  // once; each stop must still wake every waiting worker (two used to cancel out: about one run
  // in five never ended). 40 runs, each given 5 s.
  outcome const o =
      sh("for i in $(seq 40); do timeout 5 sh -c 'ulimit -v 320000; exec \"$0\" -n 10M -j 64 --buffers 2' \"$F\" "
         ">/dev/null 2>>runs.err; echo $?; done",
         240s);
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(o.out, [] {
    std::string ones;
    for (int i = 0; i < 40; ++i) ones += "1\n";
    return ones;
  }()) << file("runs.err");
  EXPECT_EQ(count_lines(file("runs.err")), 40u) << file("runs.err");
}

TEST_F(Failures, NoHugePages) {
  for (char const* threads : {"1", "3"}) {
    outcome const o = sh("set -o pipefail; \"$NX\" \"$F\" --bytes 64M --threads " + std::string(threads) +
                         " --stats 2>gen.err | \"$F\" check >check.out");
    std::string const stats = file("gen.err");
    ASSERT_EQ(o.status, 0) << o.err << stats;
    EXPECT_TRUE(check_ok(file("check.out"), 64u << 20));
    EXPECT_NE(stats.find("huge pages 0 kB"), std::string::npos) << stats;
  }
}

TEST_F(Failures, BadStandardOutput) {
  struct expect {
    char const* redirect;
    char const* mentions;
  };
  // The last: the read end of a pipe on fd 1, where vmsplice would silently read (its writer
  // sleeps only to keep that pipe open while fizzgen looks at it).
  for (expect const& e :
       {expect{">&-", "closed"}, expect{"1</dev/null", "writing"}, expect{"< <(sleep 1; echo x) 1<&0", "writing"}}) {
    for (char const* gen : {"--count 1000", "--bytes 10M --threads 3", "yes"}) {
      std::string const what = std::string(gen) + " " + e.redirect;
      outcome const o = sh("\"$F\" " + std::string(gen) + " " + e.redirect, 10s);
      EXPECT_EQ(o.status, 1) << what << ": " << o.err;
      EXPECT_EQ(count_lines(o.err), 1u) << what << ": " << o.err;
      EXPECT_NE(o.err.find(e.mentions), std::string::npos) << what << ": " << o.err;
    }
  }
}

// ---- CPUs ---------------------------------------------------------------------------------------

TEST_F(Failures, WorkersStayOnAllowedCpus) {
  std::vector<int> const cpus = allowed_cpus();
  ASSERT_FALSE(cpus.empty());
  // One CPU allowed, and not the first one: no worker may run (or claim to be pinned) elsewhere.
  int const only = cpus.back();
  for (char const* mode : {"--bytes 64M", "--bytes 64M --generate-only", "yes --bytes 64M"}) {
    for (char const* threads : {"1", "2", "3"}) {
      std::string const what = std::string(mode) + " --threads " + threads + " on cpu " + std::to_string(only);
      outcome const o = sh("taskset -c " + std::to_string(only) + " \"$F\" " + mode + " --threads " + threads +
                           " --stats-json gen.json | cat >/dev/null");
      ASSERT_EQ(o.status, 0) << what << ": " << o.err;
      stats_json const s = parse_stats_json(file("gen.json"));
      ASSERT_TRUE(s.parsed) << what;
      ASSERT_EQ(s.cpus.size(), std::stoul(threads)) << what;
      for (int c : s.cpus) EXPECT_TRUE(c == -1 || c == only) << what << ": a worker on cpu " << c;
    }
  }
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU allowed: nothing more to check";
  // Two CPUs allowed, one worker: it is pinned, to one of them.
  std::string const two = std::to_string(cpus[cpus.size() - 2]) + "," + std::to_string(cpus.back());
  outcome const o = sh("set -o pipefail; taskset -c " + two +
                       " \"$F\" --bytes 64M --threads 1 --stats-json gen.json | \"$F\" check >check.out");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_TRUE(check_ok(file("check.out"), 64u << 20));
  stats_json const s = parse_stats_json(file("gen.json"));
  ASSERT_EQ(s.cpus.size(), 1u);
  EXPECT_TRUE(s.cpus[0] == cpus[cpus.size() - 2] || s.cpus[0] == cpus.back())
      << "the worker is on cpu " << s.cpus[0] << ", allowed " << two;
}

// The default thread count leaves one CPU for the reader when fd 1 is a pipe or a socket (two CPUs
// allowed: one worker, pinned), and takes every CPU when nothing reads (a file, --generate-only).
TEST_F(Failures, DefaultThreadsLeaveACpuForTheReader) {
  std::vector<int> const cpus = allowed_cpus();
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU allowed: the default is one thread everywhere";
  std::string const on_two = "taskset -c " + std::to_string(cpus[0]) + "," + std::to_string(cpus[1]) + " ";
  std::string const gen = "\"$F\" --bytes 16M --stats-json gen.json";
  struct run {
    std::string cmd;
    std::size_t threads;
  };
  for (run const& r : {run{on_two + gen + " | \"$F\" check >check.out", 1},
                       run{on_two + "\"$SX\" unix " + gen + " | \"$F\" check >check.out", 1},
                       run{on_two + gen + " >out.bin && \"$F\" check <out.bin >check.out", 2}}) {
    outcome const o = sh("set -o pipefail; " + r.cmd);
    ASSERT_EQ(o.status, 0) << r.cmd << ": " << o.err;
    EXPECT_TRUE(check_ok(file("check.out"), 16u << 20)) << r.cmd;
    stats_json const s = parse_stats_json(file("gen.json"));
    ASSERT_TRUE(s.parsed) << r.cmd;
    EXPECT_EQ(s.cpus.size(), r.threads) << r.cmd;
  }
  outcome const o = sh(on_two + gen + " --generate-only");
  ASSERT_EQ(o.status, 0) << o.err;
  EXPECT_EQ(parse_stats_json(file("gen.json")).cpus.size(), 2u) << "--generate-only";
}

// ---- poisoned buffers ---------------------------------------------------------------------------

// FIZZGEN_POISON=1 fills every buffer with 0x01 when it is mapped and after every discard, so a
// byte the generator forgot to write (or a discard that came after a fill) shows in the output.
TEST_F(Failures, PoisonNeverShows) {
  std::uint64_t const bytes = kSanitized ? std::uint64_t{8} << 20 : std::uint64_t{64} << 20;
  std::string const n = std::to_string(bytes);
  struct run {
    char const* gen;    ///< options after fizzgen
    char const* rules;  ///< for check
    char const* tail;   ///< the reader, writing out.bin
  };
  std::vector<run> const runs{
      {"--threads 1", "", "| pv -q >out.bin"},                   // in place
      {"--threads 3", "", "| pv -q | cat >out.bin"},             // fresh pages
      {"--threads 3 --reuse never", "", "| cat >out.bin"},       // discard every time
      {"--threads 2 --reuse always", "", "| \"$RC\" >out.bin"},  // in place, slot accounting
      {"--threads 3 --rule 2:Fizz --rule 7:Quux", " --rule 2:Fizz --rule 7:Quux", "| pv -q | cat >out.bin"},
      {"--threads 1 --rule 2:Fizz --rule 7:Quux --reuse never", " --rule 2:Fizz --rule 7:Quux", ">out.bin"},
      {"--threads 2 --from 99999999999999999000", " --from 99999999999999999000", "| pv -q >out.bin"},
  };
  for (run const& r : runs) {
    std::string const what = std::string("FIZZGEN_POISON=1 fizzgen ") + r.gen + " " + r.tail;
    outcome const o = sh("set -o pipefail; FIZZGEN_POISON=1 \"$F\" --bytes " + n + " " + r.gen + " " + r.tail +
                             " && \"$F\" check" + r.rules + " <out.bin >check.out",
                         scaled(30s));
    ASSERT_EQ(o.status, 0) << what << ": " << o.err << file("check.out");
    std::string const out = file("out.bin");
    EXPECT_EQ(out.size(), bytes) << what;
    EXPECT_EQ(out.find('\x01'), std::string::npos) << what << ": poison at byte " << out.find('\x01');
    EXPECT_TRUE(check_ok(file("check.out"), bytes)) << what;
  }
}

// ---- holes --reuse auto once had (found by these tests, closed since)

// A reader that forwards our pages into a pipe fizzgen also holds (here fd 3, set up by the shell
// for both) must not be trusted: any write end of a pipe counts, shared with us or not.
TEST_F(Failures, AutoDistrustsAReaderForwardingIntoASharedPipe) {
  outcome const o =
      sh("{ \"$F\" --bytes 256M --threads 1 --stats 2>gen.err | \"$SF\" -o 3 -g 1048576 >/dev/null; } 3>&1 | "
         "\"$SF\" -c 16384 -s 20 | \"$F\" check",
         scaled(60s));
  EXPECT_EQ(o.status, 0) << o.err << file("gen.err");
  EXPECT_TRUE(check_ok(o.out, 256u << 20)) << o.err;
}

// A reader that looks like a copier at first (read(2) into a file), then starts forwarding through
// pipes it creates (2 MiB of our pages held 50 ms at a time). Buffers are rewritten in place only
// after an inspection begun once they had left the pipe, so the pages it forwarded stay intact.
// (When auto rewrote on the last verdict alone, this failed 6 runs in 6.)
TEST_F(Failures, AutoSurvivesAReaderThatStartsForwardingLate) {
  outcome const o =
      sh("set -o pipefail; \"$F\" --bytes 32M --stats 2>gen.err | \"$SF\" -r 1048576 -d 6000000 -p -n 4 -w 50000 "
         ">out.bin && \"$F\" check <out.bin",
         scaled(60s));
  EXPECT_EQ(o.status, 0) << o.err << file("gen.err");
  EXPECT_TRUE(check_ok(o.out, 32u << 20)) << o.err;
}

// A reader that forwards our pages into a named FIFO: /proc shows that descriptor as the FIFO's
// path, not as pipe:[...], and auto once took it for a plain file and reused buffers in place.
// Descriptors are now told apart by stat(), so a FIFO is the pipe it is.
TEST_F(Failures, AutoDistrustsAReaderForwardingIntoANamedFifo) {
  outcome const o =
      sh("mkfifo f && { \"$F\" --bytes 64M --threads 1 --stats 2>gen.err | \"$SF\" -g 1048576 >f & } && "
         "\"$SF\" -c 16384 -s 20 <f | \"$F\" check; status=$?; wait; exit $status",
         scaled(60s));
  EXPECT_EQ(o.status, 0) << o.err << file("gen.err");
  EXPECT_TRUE(check_ok(o.out, 64u << 20)) << o.err;
  EXPECT_NE(file("gen.err").find("fresh pages: reader"), std::string::npos) << file("gen.err");
  EXPECT_NE(file("gen.err").find("/f and could forward pages"), std::string::npos) << file("gen.err");
}

}  // namespace
