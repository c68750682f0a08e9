// run_agent with small shell-script agents: each way an agent can fail is an outcome, never an exception.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "agent_test_support.hpp"
#include "kforge/scheduler/agents/agent_runner.hpp"

namespace kforge::scheduler {
namespace {

// Running (not gone and not a zombie waiting for its new parent to reap it), from /proc/PID/stat.
bool running(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(stat, line)) return false;
  const auto state_at = line.rfind(')') + 2;
  return state_at < line.size() && line[state_at] != 'Z' && line[state_at] != 'X';
}

// Waits up to 5 s for a SIGKILLed process to be gone: delivery is asynchronous.
bool gone_soon(pid_t pid) {
  for (int i = 0; i < 500 && running(pid); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return !running(pid);
}

class AgentRunnerTest : public ::testing::Test {
 protected:
  SearchSpace space{testing::small_space()};
  AgentBrief brief = testing::small_brief();
  std::filesystem::path dir = std::filesystem::path(KFORGE_BINARY_DIR) / "agents-test" /
                              ::testing::UnitTest::GetInstance()->current_test_info()->name();

  // An agent script; $2 is the brief path and $4 the children path (`--brief B --children C`).
  AgentSpec agent(const std::string& body, double timeout_s = 20.0) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    const auto script = dir / "agent.sh";
    std::ofstream(script) << "#!/bin/sh\n" << body << "\n";
    std::filesystem::permissions(script, std::filesystem::perms::owner_all);
    return AgentSpec{"test-agent", {script.string()}, timeout_s, dir / "work", {}};
  }
};

TEST_F(AgentRunnerTest, ValidChildrenAreOk) {
  const auto outcome = run_agent(agent(R"(test "$1" = --brief && test -s "$2" && test "$3" = --children || exit 9
cat > "$4" <<'YAML'
children:
  - genome: {MC: 16, ORDER: pji, ALPHA: 0.5}
    rationale: smaller
  - genome: {MC: 99, ORDER: pji, ALPHA: 0.5}
YAML)"),
                                 brief, space);
  EXPECT_EQ(outcome.status, AgentStatus::ok) << outcome.evidence;
  EXPECT_EQ(outcome.exit_code, 0);
  ASSERT_EQ(outcome.children.size(), 1U);
  EXPECT_EQ(outcome.children[0].rationale, "smaller");
  ASSERT_EQ(outcome.rejected.size(), 1U);
  EXPECT_NE(outcome.evidence.find("MC=99"), std::string::npos) << outcome.evidence;
  EXPECT_TRUE(std::filesystem::exists(dir / "work" / "brief.json"));
}

TEST_F(AgentRunnerTest, GarbageOutputIsMalformed) {
  const auto outcome = run_agent(agent(R"(printf 'children: [ {{{ not yaml' > "$4")"), brief, space);
  EXPECT_EQ(outcome.status, AgentStatus::malformed) << outcome.evidence;
  EXPECT_NE(outcome.evidence.find("not YAML"), std::string::npos) << outcome.evidence;
}

TEST_F(AgentRunnerTest, NoChildrenFileIsMalformed) {
  const auto outcome = run_agent(agent("echo 'thinking hard' >&2"), brief, space);
  EXPECT_EQ(outcome.status, AgentStatus::malformed) << outcome.evidence;
  EXPECT_NE(outcome.evidence.find("was not written"), std::string::npos) << outcome.evidence;
  EXPECT_NE(outcome.evidence.find("thinking hard"), std::string::npos) << outcome.evidence;
}

TEST_F(AgentRunnerTest, EveryEntryRejectedIsMalformed) {
  const auto outcome = run_agent(agent(R"(echo 'children: [{rationale: empty}]' > "$4")"), brief, space);
  EXPECT_EQ(outcome.status, AgentStatus::malformed) << outcome.evidence;
  EXPECT_EQ(outcome.rejected.size(), 1U);
}

TEST_F(AgentRunnerTest, NonZeroExitIsACrashWithItsCodeAndStderr) {
  const auto outcome = run_agent(agent("echo 'out of tokens' >&2; exit 3"), brief, space);
  EXPECT_EQ(outcome.status, AgentStatus::crashed);
  EXPECT_EQ(outcome.exit_code, 3);
  EXPECT_NE(outcome.evidence.find("exited with code 3"), std::string::npos) << outcome.evidence;
  EXPECT_NE(outcome.evidence.find("out of tokens"), std::string::npos) << outcome.evidence;
}

TEST_F(AgentRunnerTest, SignalIsACrashWithTheSignal) {
  // A valid children file does not rescue an agent that then dies.
  const auto outcome = run_agent(agent(R"(echo 'children: []' > "$4"; kill -SEGV $$)"), brief, space);
  EXPECT_EQ(outcome.status, AgentStatus::crashed);
  EXPECT_EQ(outcome.signal, SIGSEGV);
  EXPECT_TRUE(outcome.children.empty());
}

TEST_F(AgentRunnerTest, HangIsKilledAtTheTimeLimitWithItsChildren) {
  const auto outcome = run_agent(agent("sleep 100 & echo $! > sleeper.pid; sleep 100", 1.0), brief, space);
  EXPECT_EQ(outcome.status, AgentStatus::timed_out) << outcome.evidence;
  EXPECT_LT(outcome.wall_s, 50.0);  // killed long before the sleeps end, not a timing assertion on the limit
  EXPECT_NE(outcome.evidence.find("time limit"), std::string::npos) << outcome.evidence;
  // The background sleep in the same process group is gone too.
  std::ifstream pid_file(dir / "work" / "sleeper.pid");
  pid_t sleeper = 0;
  ASSERT_TRUE(pid_file >> sleeper);
  EXPECT_TRUE(gone_soon(sleeper)) << "background child " << sleeper << " survived";
}

TEST_F(AgentRunnerTest, MissingExecutableIsACrashNotAnException) {
  AgentSpec spec = agent("true");
  spec.command = {"/nonexistent/agent-binary"};
  const auto outcome = run_agent(spec, brief, space);
  EXPECT_EQ(outcome.status, AgentStatus::crashed);
  EXPECT_EQ(outcome.exit_code, 127);
  EXPECT_NE(outcome.evidence.find("cannot start"), std::string::npos) << outcome.evidence;
}

TEST_F(AgentRunnerTest, StaleChildrenFileFromAnEarlierRunIsNotReused) {
  const AgentSpec spec = agent("exit 0");
  std::filesystem::create_directories(spec.working_dir);
  std::ofstream(spec.working_dir / "children.yaml") << "children: [{genome: {MC: 16, ORDER: jpi, ALPHA: 0.5}}]\n";
  EXPECT_EQ(run_agent(spec, brief, space).status, AgentStatus::malformed);
}

}  // namespace
}  // namespace kforge::scheduler
