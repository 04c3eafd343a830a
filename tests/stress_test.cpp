// Driving a consumer end to end: check's length options (a lost tail must fail), check FILE.
// Every stream is judged by `fizzgen check` through a real pipe.

#include <string>

#include "pipeline_harness.hpp"

namespace {

using namespace fizzgen_test;

class Stress : public pipeline_test {};

// ---- check: what must arrive ----------------------------------------------------------------

TEST_F(Stress, LostTailFails) {
  outcome const o = sh("$F --count 1000 | head -n 10 | $F check --count 1000");
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.out, "");
  EXPECT_EQ(o.err,
            "fizzgen check: expected 1000 lines, received 10 lines, 35 bytes: the stream ends early, at line 11 (byte "
            "offset 35)\n");
  // The same through several threads of check, and by bytes.
  outcome const bytes = sh("$F --bytes 1048576 | head -c 1000000 | $F check --bytes 1048576 --threads 2");
  EXPECT_EQ(bytes.status, 1);
  EXPECT_NE(bytes.err.find("expected 1048576 bytes, received "), std::string::npos) << bytes.err;
  EXPECT_NE(bytes.err.find("1000000 bytes"), std::string::npos) << bytes.err;
  outcome const to = sh("$F --from 7 --to 5000 | head -n -1 | $F check --from 7 --to 5000");
  EXPECT_EQ(to.status, 1);
  EXPECT_NE(to.err.find("expected 4994 lines, received 4993 lines"), std::string::npos) << to.err;
}

TEST_F(Stress, ExactLengthsPassAndExtraFails) {
  EXPECT_TRUE(check_ok(ok("$F --count 1000000 --threads 2 | $F check --count 1000000"), 6274073));
  EXPECT_TRUE(check_ok(ok("$F --bytes 12345 | $F check --bytes 12345"), 12345));
  EXPECT_NE(ok("$F --from 99 --to 100000 | $F check --from 99 --to 100000").find("OK: 99902 lines"), std::string::npos);
  EXPECT_TRUE(check_ok(ok("$F --count 1K --bytes 100 | $F check --count 1K --bytes 100"), 100));
  outcome const extra = sh("$F --count 1001 | $F check --count 1000");
  EXPECT_EQ(extra.status, 1);
  EXPECT_NE(extra.err.find("more than expected, from line 1001"), std::string::npos) << extra.err;
}

TEST_F(Stress, EmptyInputFailsUnlessNothingMayArrive) {
  outcome const o = sh("$F check </dev/null");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("empty input"), std::string::npos) << o.err;
  EXPECT_NE(ok("$F --count 0 | $F check --count 0").find("OK: 0 lines, 0 bytes"), std::string::npos);
  EXPECT_EQ(sh("$F --count 1 | $F check --count 0").status, 1);
}

TEST_F(Stress, CheckReadsAFile) {
  ok("$F --count 100000 >out.txt");
  EXPECT_TRUE(check_ok(ok("$F check --count 100000 out.txt"), 574073));
  EXPECT_TRUE(check_ok(ok("$F check --count 100000 - <out.txt"), 574073));
  outcome const missing = sh("$F check no-such-file");
  EXPECT_EQ(missing.status, 1);
  EXPECT_EQ(missing.err, "fizzgen check: no-such-file: No such file or directory\n");
}

TEST_F(Stress, CheckNamesLostLines) {
  outcome const o = sh("$F --count 1000 | sed '776,778d' | $F check");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.err.find("line 776 (byte offset 3608): expected '776', got '779' (the line for 779: 3 lines missing"),
            std::string::npos)
      << o.err;
}

}  // namespace
