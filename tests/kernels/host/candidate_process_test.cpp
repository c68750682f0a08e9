// The candidate process on its own: what it inherits, how it is confined, how its failures are named.
#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>

#include "kforge/kernels/candidate_secrets.hpp"
#include "kforge/test_support/scratch_dir.hpp"
#include "sandbox/candidate_process.hpp"

namespace fs = std::filesystem;
using namespace kforge::kernels;
using namespace kforge::kernels::host;

namespace {

std::array<char, 16> secret{};

// Copies the registered secret (as the candidate process sees it) into buffer 0.
void copy_secret(void*, std::byte* base, const CallHeader& h) { std::memcpy(base + h.offsets[0], secret.data(), 16); }
void crash(void*, std::byte*, const CallHeader&) { ::raise(SIGSEGV); }
// Reports whether it could signal its parent (the harness) into buffer 0.
void signal_parent(void*, std::byte* base, const CallHeader& h) {
  const int ok = ::kill(::getppid(), 0) == 0;
  std::memcpy(base + h.offsets[0], &ok, sizeof ok);
}

// Writes its own pid into buffer 0.
void report_pid(void*, std::byte* base, const CallHeader& h) {
  const pid_t pid = ::getpid();
  std::memcpy(base + h.offsets[0], &pid, sizeof pid);
}

// True once `pid` is gone or a zombie (its new parent may not have reaped it yet).
bool gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const std::size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

class CandidateProcessTest : public ::testing::Test {
 protected:
  kforge::test_support::ScratchDir dir_{"candidate-process"};
  const fs::path scratch_ = dir_.path();
};

TEST_F(CandidateProcessTest, RegisteredSecretsAreWipedBeforeCandidateCodeRuns) {
  std::memcpy(secret.data(), "frame key bytes", 16);
  forget_in_candidate_processes(secret.data(), secret.size());
  CandidateProcess process(nullptr, &copy_secret, scratch_);
  std::array<char, 16> seen{};
  seen.fill('x');
  const std::array<CallBuffer, 1> buffers{CallBuffer{seen.data(), seen.size()}};
  process.call(std::span<const std::int64_t>{}, buffers);
  EXPECT_EQ(seen, (std::array<char, 16>{})) << "the candidate process saw the harness's secret";
  EXPECT_STREQ(secret.data(), "frame key bytes") << "the harness keeps its own copy";
}

TEST_F(CandidateProcessTest, ACrashIsACandidateFaultNamingTheSignal) {
  CandidateProcess process(nullptr, &crash, scratch_);
  try {
    process.call({}, {});
    FAIL() << "no CandidateFault";
  } catch (const CandidateFault& e) {
    EXPECT_NE(std::string(e.what()).find("SIGSEGV"), std::string::npos) << e.what();
  }
}

TEST_F(CandidateProcessTest, ItCannotSignalTheHarnessAndSaysHowItIsConfined) {
  CandidateProcess process(nullptr, &signal_parent, scratch_);
  int could = -1;
  const std::array<CallBuffer, 1> buffers{CallBuffer{&could, sizeof could}};
  process.call({}, buffers);
  EXPECT_EQ(could, 0);
  EXPECT_NE(process.confinement().find("seccomp"), std::string::npos) << process.confinement();
  EXPECT_NE(process.confinement().find("Landlock"), std::string::npos) << process.confinement();
}

TEST_F(CandidateProcessTest, TheHarnessTimesEachCall) {
  CandidateProcess process(nullptr, &signal_parent, scratch_);
  int could = -1;
  const std::array<CallBuffer, 1> buffers{CallBuffer{&could, sizeof could}};
  const double ms = process.call({}, buffers);
  EXPECT_GT(ms, 0.0);
  EXPECT_LT(ms, 10'000.0);
}

// A harness killed from outside (an out-of-memory killer, a task's timeout) takes its candidate with it, although
// the candidate has a session of its own (no process-group kill reaches it) and changed its user when it was
// confined, which clears the parent-death signal: it is armed again after the change.
TEST_F(CandidateProcessTest, ACandidateDiesWithItsHarnessEvenAsAnotherUser) {
  int report[2];
  ASSERT_EQ(::pipe(report), 0);
  const pid_t harness = ::fork();
  ASSERT_GE(harness, 0);
  if (harness == 0) {
    CandidateProcess process(nullptr, &report_pid, scratch_);
    pid_t candidate = 0;
    const std::array<CallBuffer, 1> buffers{CallBuffer{&candidate, sizeof candidate}};
    process.call({}, buffers);
    (void)!::write(report[1], &candidate, sizeof candidate);
    for (;;) ::pause();
  }
  ::close(report[1]);
  pid_t candidate = 0;
  ASSERT_EQ(::read(report[0], &candidate, sizeof candidate), static_cast<ssize_t>(sizeof candidate));
  ::close(report[0]);
  ASSERT_GT(candidate, 0);
  ASSERT_FALSE(gone(candidate));
  ::kill(harness, SIGKILL);
  ::waitpid(harness, nullptr, 0);
  for (int i = 0; i < 100 && !gone(candidate); ++i) ::usleep(50'000);
  EXPECT_TRUE(gone(candidate)) << "candidate process " << candidate << " outlived its harness";
  if (!gone(candidate)) ::kill(candidate, SIGKILL);
}

// The kernel sends SIGHUP then SIGCONT to a process group with a stopped member when the group becomes orphaned:
// when the last member whose parent is in another group of the same session exits. A candidate process is stopped
// between calls, so a harness whose group loses that link (a wrapper that exits early, a job-control shell) lost its
// candidate with "killed by SIGHUP when called" (bench/engine_vs_peers at SmolLM-135M's size). Here the link is made
// to go: session S (process a), group P (process link, whose parent a is in S's other group), the harness in P.
TEST_F(CandidateProcessTest, AStoppedCandidateOutlivesItsHarnessGroupBecomingOrphaned) {
  int ready[2], result[2];
  ASSERT_EQ(::pipe(ready), 0);
  ASSERT_EQ(::pipe(result), 0);
  const pid_t a = ::fork();
  ASSERT_GE(a, 0);
  if (a == 0) {
    ::setsid();
    const pid_t link = ::fork();
    if (link == 0) {
      ::setpgid(0, 0);
      const pid_t harness = ::fork();
      if (harness == 0) {
        std::string outcome = "ok";
        try {
          CandidateProcess process(nullptr, &signal_parent, scratch_);
          int could = -1;
          const std::array<CallBuffer, 1> buffers{CallBuffer{&could, sizeof could}};
          process.call({}, buffers);  // now stopped between calls
          (void)!::write(ready[1], "r", 1);
          while (::getppid() == link) ::usleep(1000);  // the link is gone: the group is orphaned
          ::usleep(100'000);
          process.call({}, buffers);
        } catch (const std::exception& e) {
          outcome = e.what();
        }
        (void)!::write(result[1], outcome.data(), outcome.size());
        ::_exit(0);
      }
      char byte = 0;
      (void)!::read(ready[0], &byte, 1);
      ::_exit(0);
    }
    ::waitpid(link, nullptr, 0);
    ::_exit(0);
  }
  ::close(result[1]);
  ::close(ready[0]);
  ::close(ready[1]);
  ASSERT_EQ(::waitpid(a, nullptr, 0), a);
  pollfd wait{result[0], POLLIN, 0};
  ASSERT_EQ(::poll(&wait, 1, 60'000), 1) << "the harness never reported";
  char text[512] = {};
  ASSERT_GT(::read(result[0], text, sizeof text - 1), 0);
  ::close(result[0]);
  EXPECT_STREQ(text, "ok");
}

}  // namespace
