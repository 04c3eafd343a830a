// End to end: `fizzgen morse`, `morse encode` and `morse decode` as a shell runs them, through
// pipes, files and redirections, judged by the Morse oracle; usage errors and a reader going away.

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "morse_oracle.hpp"
#include "oracle.hpp"
#include "pipeline_harness.hpp"

namespace {

using namespace fizzgen_test;

/// Each test gets a fresh directory; commands run there through bash with $F naming fizzgen.
class MorseE2E : public pipeline_test {};

TEST_F(MorseE2E, FizzBuzzInMorseMatchesTheOracle) {
  EXPECT_EQ(ok("$F morse --count 3"), ".----\n..---\n..-. .. --.. --..\n");
  struct window {
    std::string from;
    std::uint64_t count;
  };
  for (window const& w : {window{"1", 100000}, window{"18446744073709551600", 100}, window{"9999999990", 50}}) {
    std::string const want = morse_oracle::encode(oracle::fizzbuzz_lines(w.from, w.count));
    for (char const* tail : {"", " --threads 1", " --threads 3", " --arch scalar", " | cat"}) {
      std::string const cmd = "$F morse --from " + w.from + " --count " + std::to_string(w.count) + tail;
      EXPECT_EQ(oracle::first_difference(ok(cmd), want), "") << cmd;
    }
  }
  EXPECT_EQ(ok("$F morse --from 7 --to 9"), "--...\n---..\n..-. .. --.. --..\n");
  EXPECT_EQ(ok("$F morse --rule 2:a --rule 3:### --count 4"), ".----\n.-\n\n.-\n");
  std::string const all = morse_oracle::encode(oracle::fizzbuzz_lines("1", 1000));
  EXPECT_EQ(ok("$F morse --bytes 1000"), all.substr(0, 1000));
}

TEST_F(MorseE2E, MorseFizzBuzzDecodesToThePlainStream) {
  std::string const plain = oracle::fizzbuzz_lines("1", 20000);
  EXPECT_EQ(oracle::first_difference(ok("$F morse --count 20000 | $F morse decode"),
                                     morse_oracle::upper_without_uncodable(plain)),
            "");
}

TEST_F(MorseE2E, EncodeAndDecodeFilesPipesAndRedirections) {
  std::mt19937_64 rng(42);
  std::string text;
  std::string_view const alphabet = "The quick brown fox, 42!?\n\t\r  %&#\xc3\xa9";
  for (int i = 0; i < 300000; ++i) text += alphabet[rng() % alphabet.size()];
  write_file(dir_ / "in.txt", text);
  std::string const morse = morse_oracle::encode(text);
  write_file(dir_ / "in.morse", morse);
  std::string const decoded = morse_oracle::decode(morse);
  for (std::string const opts : {"", " --threads 1", " --threads 2 --chunk-size 1000", " --threads 4 --chunk-size 7"}) {
    for (std::string const& src : {std::string(" in.txt"), std::string(" - <in.txt"), std::string(" <in.txt")}) {
      std::string const cmd = "$F morse encode" + opts + src;
      EXPECT_EQ(oracle::first_difference(ok(cmd), morse), "") << cmd;
    }
    std::string const piped = "cat in.txt | $F morse encode" + opts + " | cat";
    EXPECT_EQ(oracle::first_difference(ok(piped), morse), "") << piped;
    for (std::string const& src : {std::string(" in.morse"), std::string(" <in.morse")}) {
      std::string const cmd = "$F morse decode" + opts + src;
      EXPECT_EQ(oracle::first_difference(ok(cmd), decoded), "") << cmd;
    }
    std::string const piped_decode = "cat in.morse | $F morse decode" + opts;
    EXPECT_EQ(oracle::first_difference(ok(piped_decode), decoded), "") << piped_decode;
  }
  // The rest of a file whose offset is not at its start: what `read` left.
  EXPECT_EQ(ok("{ read -r first; $F morse encode; } <in.txt"), morse_oracle::encode(text.substr(text.find('\n') + 1)));
  write_file(dir_ / "empty", "");
  EXPECT_EQ(ok("$F morse encode empty"), "");
}

TEST_F(MorseE2E, EveryEncoderArchGivesTheOracleBytes) {
  std::mt19937_64 rng(7);
  std::string text;
  std::string_view const alphabet = "the quick brown fox, 42!\n\t\r  %&$#\xc3\xa9";
  for (int i = 0; i < 100000; ++i) text += alphabet[rng() % alphabet.size()];
  write_file(dir_ / "in.txt", text);
  std::string const morse = morse_oracle::encode(text);
  // `--list-archs` lines: NAME, then "available" for the ones this CPU runs.
  std::string const list = ok("$F --list-archs | awk '$2 == \"available\" { print $1 }'");
  for (std::size_t at = 0, end; (end = list.find('\n', at)) != std::string::npos; at = end + 1) {
    std::string const arch = list.substr(at, end - at);
    for (std::string const& cmd : {"$F morse encode --arch " + arch + " --chunk-size 999 in.txt",
                                   "FIZZGEN_ARCH=" + arch + " $F morse encode --threads 2 <in.txt"})
      EXPECT_EQ(oracle::first_difference(ok(cmd), morse), "") << cmd;
  }
  EXPECT_NE(list.find("scalar"), std::string::npos);
  EXPECT_EQ(sh("$F morse encode --arch nonsense in.txt").status, 2);
}

TEST_F(MorseE2E, CustomRulesOnEveryArchPassCheck) {
  // The plan kernel of every arch (and the scalar path), whole blocks and chunk edges, judged by
  // check's own Morse table, near 1, 10^9 and 10^18, one thread and three.
  std::string const list = ok("$F --list-archs | awk '$2 == \"available\" { print $1 }'");
  for (std::size_t at = 0, end; (end = list.find('\n', at)) != std::string::npos; at = end + 1) {
    std::string const arch = list.substr(at, end - at);
    std::vector<std::string> const rule_sets{"--rule 3:Fizz --rule 5:Buzz --rule 7:Bazz",
                                             "--rule 2:Even --rule 7:Seven", "--rule 1:Every",
                                             "--rule 4:" + std::string(40, 'L') + " --rule 6:Six"};
    for (std::string const& rules : rule_sets) {
      for (std::string const window :
           {"--from 1 -n 100000", "--from 999990000 -n 30000", "--from 999999999999990000 -n 30000"}) {
        for (char const* threads : {" -j 1", " -j 3"}) {
          std::string const cmd = "$F morse --arch " + arch + " " + rules + " " + window + threads +
                                  " | $F check --morse " + rules + " " + window;
          EXPECT_NE(ok(cmd).find("OK"), std::string::npos) << cmd;
        }
      }
    }
  }
}

TEST_F(MorseE2E, DecodeSurvivesRandomBytes) {
  std::mt19937_64 rng(3);
  std::string junk(1 << 20, '\0');
  for (char& c : junk) c = static_cast<char>(rng() & 0xff);
  write_file(dir_ / "junk", junk);
  EXPECT_EQ(ok("$F morse decode junk"), morse_oracle::decode(junk));
  EXPECT_EQ(ok("$F morse decode --chunk-size 3 --threads 2 <junk"), morse_oracle::decode(junk));
}

TEST_F(MorseE2E, ReaderGoingAwayEndsItBySigpipe) {
  outcome const o = sh("(yes 'hello world' | $F morse encode; echo $? >status) | head -c 20");
  EXPECT_EQ(o.out, ".... . .-.. .-.. ---");
  EXPECT_EQ(o.err, "");
  EXPECT_EQ(read_file(dir_ / "status"), "141\n");  // 128 + SIGPIPE, as GNU tools
  outcome const m = sh("($F morse; echo $? >status) | head -2");
  EXPECT_EQ(m.out, ".----\n..---\n");
  EXPECT_EQ(read_file(dir_ / "status"), "141\n");
}

TEST_F(MorseE2E, UsageErrorsAndMissingFiles) {
  struct bad {
    char const* cmd;
    int status;
  };
  for (bad const& b :
       {bad{"$F morse encode no-such-file", 1}, bad{"$F morse decode no-such-file", 1},
        bad{"$F morse encode --threads 0", 2}, bad{"$F morse decode --chunk-size 0", 2},
        bad{"$F morse --count 5 encode", 2}, bad{"$F --count 5 morse", 2}, bad{"$F morse --rule 3 --count 5", 2},
        bad{"$F morse --arch nonsense", 2}, bad{"$F morse encode a b", 2}, bad{"$F morse decode .", 1}}) {
    outcome const o = sh(b.cmd);
    EXPECT_EQ(o.status, b.status) << b.cmd << "\nstderr: " << o.err;
    EXPECT_EQ(o.out, "") << b.cmd;
    EXPECT_EQ(std::count(o.err.begin(), o.err.end(), '\n'), 1) << b.cmd << ": " << o.err;
    EXPECT_EQ(o.err.rfind("fizzgen: ", 0), 0u) << b.cmd << ": " << o.err;
  }
  for (char const* help : {"$F morse --help", "$F morse encode --help", "$F morse decode --help"})
    EXPECT_NE(ok(help).find("Example"), std::string::npos) << help;
}

}  // namespace
