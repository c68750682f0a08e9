// The process runner the host backend compiles with: output capture, exit status, timeout, bad programs.
#include <gtest/gtest.h>

#include "host_gemm_test_support.hpp"
#include "kforge/kernels/process.hpp"

namespace kforge::kernels::detail {
namespace {

using namespace std::chrono_literals;

TEST(RunProcess, CapturesStdoutAndStderrAndTheExitStatus) {
  const auto r = run_process({"sh", "-c", "echo to-out; echo to-err >&2; exit 3"}, {}, 10s);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.signal, 0);
  EXPECT_FALSE(r.timed_out);
  EXPECT_NE(r.output.find("to-out"), std::string::npos);
  EXPECT_NE(r.output.find("to-err"), std::string::npos);
  EXPECT_FALSE(r.succeeded());
}

TEST(RunProcess, RunsInTheGivenWorkingDirectory) {
  testing::ScratchDir dir;
  const auto r = run_process({"pwd"}, dir.path(), 10s);
  EXPECT_TRUE(r.succeeded());
  EXPECT_NE(r.output.find(dir.path().filename().string()), std::string::npos);
}

TEST(RunProcess, KillsTheWholeProcessGroupAtTheTimeout) {
  // The grandchild `sleep` holds the output pipe open too; killing only `sh` would hang here until it ends.
  const auto started = std::chrono::steady_clock::now();
  const auto r = run_process({"sh", "-c", "sleep 30 & sleep 30; echo never"}, {}, 300ms);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.succeeded());
  EXPECT_EQ(r.output.find("never"), std::string::npos);
  EXPECT_LT(std::chrono::steady_clock::now() - started, 10s);
}

TEST(RunProcess, ReportsAProgramThatCannotBeExecuted) {
  const auto r = run_process({"kforge-no-such-program-xyz"}, {}, 10s);
  EXPECT_EQ(r.exit_code, 127);
  EXPECT_NE(r.output.find("kforge-no-such-program-xyz"), std::string::npos);
}

TEST(RunProcess, KeepsOnlyTheTailOfLongOutput) {
  const auto r = run_process({"sh", "-c", "seq 1 100000"}, {}, 10s, 1000);
  EXPECT_TRUE(r.succeeded());
  EXPECT_LE(r.output.size(), 1000u);
  EXPECT_NE(r.output.find("100000\n"), std::string::npos);
}

TEST(SplitOnWhitespace, SplitsFlagsWithoutAShell) {
  EXPECT_EQ(split_on_whitespace("  -O3\t-march=native \n -DX=1 "),
            (std::vector<std::string>{"-O3", "-march=native", "-DX=1"}));
  EXPECT_TRUE(split_on_whitespace("   ").empty());
}

}  // namespace
}  // namespace kforge::kernels::detail
