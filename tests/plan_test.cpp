// Stored plans (engine/plan.hpp): the file format, and when a plan is used or ignored.
#include "engine/plan.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

using fizzgen::machine_identity;
using fizzgen::stored_plan;

machine_identity some_machine() {
  machine_identity m;
  m.cpu = "Intel(R) Xeon(R) Platinum 8481C CPU @ 2.70GHz";
  m.kernel = "6.18.44";
  m.l2_bytes = 2 << 20;
  m.l3_bytes = 105 << 20;
  m.pipe_max = 1 << 20;
  m.cpus = "0,1";
  return m;
}

stored_plan some_plan() {
  stored_plan p;
  p.machine = some_machine();
  p.chunk_bytes = 512 << 10;
  p.pipe_bytes = 512 << 10;
  p.threads = 1;
  p.gib_per_second = 31.5;
  p.model_gib_per_second = 30.25;
  p.tuned = "2026-12-01T13:00:00Z";
  return p;
}

class Plan : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("fizzgen_plan_test_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string file(std::string const& name) const { return (dir_ / name).string(); }
  std::filesystem::path dir_;
};

TEST_F(Plan, FormatAndParseRoundTrip) {
  stored_plan const p = some_plan();
  auto const back = fizzgen::parse_plan(fizzgen::format_plan(p));
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(fizzgen::differences(back->machine, p.machine), "");
  EXPECT_EQ(back->machine.cpu, p.machine.cpu);  // spaces, parentheses and @ survive
  EXPECT_EQ(back->chunk_bytes, p.chunk_bytes);
  EXPECT_EQ(back->pipe_bytes, p.pipe_bytes);
  EXPECT_EQ(back->threads, p.threads);
  EXPECT_DOUBLE_EQ(back->gib_per_second, p.gib_per_second);
  EXPECT_DOUBLE_EQ(back->model_gib_per_second, p.model_gib_per_second);
  EXPECT_EQ(back->tuned, p.tuned);
}

TEST_F(Plan, RefusesWhatItCannotTrust) {
  std::string const good = fizzgen::format_plan(some_plan());
  EXPECT_FALSE(fizzgen::parse_plan("").has_value());
  EXPECT_FALSE(fizzgen::parse_plan("fizzgen plan 2\n" + good.substr(good.find('\n') + 1)).has_value());
  auto replaced = [&](std::string const& key, std::string const& value) {
    std::string t = good;
    std::size_t const at = t.find("\n" + key + " ") + 1;
    t.replace(at, t.find('\n', at) - at, key + " " + value);
    return t;
  };
  EXPECT_FALSE(fizzgen::parse_plan(replaced("threads", "0")).has_value());
  EXPECT_FALSE(fizzgen::parse_plan(replaced("threads", "many")).has_value());
  EXPECT_FALSE(fizzgen::parse_plan(replaced("chunk_bytes", "100")).has_value());
  EXPECT_FALSE(fizzgen::parse_plan(replaced("pipe_bytes", "")).has_value());
  EXPECT_FALSE(fizzgen::parse_plan(good.substr(0, good.find("\nthreads"))).has_value());  // cut short
  EXPECT_TRUE(fizzgen::parse_plan(replaced("threads", "4")).has_value());
}

TEST_F(Plan, NamesWhatDiffers) {
  machine_identity const a = some_machine();
  machine_identity b = a;
  EXPECT_EQ(fizzgen::differences(a, b), "");
  b.kernel = "6.1.0";
  b.cpus = "0";
  EXPECT_EQ(fizzgen::differences(a, b), "kernel, CPUs allowed");
  b = a;
  b.l2_bytes = 1 << 20;
  b.pipe_max = 16 << 20;
  EXPECT_EQ(fizzgen::differences(a, b), "L2 size, fs.pipe-max-size");
}

TEST_F(Plan, UsedOnlyOnTheMachineItWasMeasuredOn) {
  std::string error;
  std::string const path = file("sub/dir/plan");  // directories are created
  ASSERT_TRUE(fizzgen::save_plan(path, some_plan(), error)) << error;
  auto const same = fizzgen::find_plan(path, some_machine());
  ASSERT_TRUE(same.plan.has_value()) << same.note;
  EXPECT_EQ(same.plan->chunk_bytes, std::size_t{512} << 10);
  EXPECT_NE(same.note.find(path), std::string::npos) << same.note;
  EXPECT_NE(same.note.find("2026-12-01T13:00:00Z"), std::string::npos) << same.note;

  machine_identity other = some_machine();
  other.cpu = "AMD EPYC";
  auto const elsewhere = fizzgen::find_plan(path, other);
  EXPECT_FALSE(elsewhere.plan.has_value());
  EXPECT_NE(elsewhere.note.find("ignored"), std::string::npos) << elsewhere.note;
  EXPECT_NE(elsewhere.note.find("CPU model"), std::string::npos) << elsewhere.note;

  std::ofstream(file("junk")) << "not a plan\n";
  auto const junk = fizzgen::find_plan(file("junk"), some_machine());
  EXPECT_FALSE(junk.plan.has_value());
  EXPECT_NE(junk.note.find("ignored"), std::string::npos) << junk.note;

  auto const none = fizzgen::find_plan(file("absent"), some_machine());
  EXPECT_FALSE(none.plan.has_value());
  EXPECT_EQ(none.note, "");  // nothing stored: nothing to say
  EXPECT_FALSE(fizzgen::find_plan("", some_machine()).plan.has_value());
}

TEST_F(Plan, SaveReportsWhyItCannot) {
  std::ofstream(file("a_file")) << "x";
  std::string error;
  EXPECT_FALSE(fizzgen::save_plan(file("a_file") + "/plan", some_plan(), error));
  EXPECT_NE(error.find("a_file"), std::string::npos) << error;
}

TEST_F(Plan, PathFollowsTheEnvironment) {
  char const* keep_plan = std::getenv("FIZZGEN_PLAN");
  char const* keep_xdg = std::getenv("XDG_CACHE_HOME");
  char const* keep_home = std::getenv("HOME");
  std::string const saved_plan = keep_plan ? keep_plan : "", saved_xdg = keep_xdg ? keep_xdg : "",
                    saved_home = keep_home ? keep_home : "";
  ::unsetenv("FIZZGEN_PLAN");
  ::setenv("XDG_CACHE_HOME", "/xdg", 1);
  ::setenv("HOME", "/home/someone", 1);
  EXPECT_EQ(fizzgen::plan_path(), "/xdg/fizzgen/plan");
  ::setenv("XDG_CACHE_HOME", "relative", 1);  // the XDG rule: a relative path is ignored
  EXPECT_EQ(fizzgen::plan_path(), "/home/someone/.cache/fizzgen/plan");
  ::setenv("FIZZGEN_PLAN", "/elsewhere/plan", 1);
  EXPECT_EQ(fizzgen::plan_path(), "/elsewhere/plan");
  ::setenv("FIZZGEN_PLAN", "", 1);
  EXPECT_EQ(fizzgen::plan_path(), "");
  auto restore = [](char const* name, char const* was, std::string const& value) {
    if (was != nullptr) {
      ::setenv(name, value.c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  };
  restore("FIZZGEN_PLAN", keep_plan, saved_plan);
  restore("XDG_CACHE_HOME", keep_xdg, saved_xdg);
  restore("HOME", keep_home, saved_home);
}

}  // namespace
