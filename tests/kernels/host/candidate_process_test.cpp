// The candidate process on its own: what it inherits, how it is confined, how its failures are named.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <filesystem>
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

}  // namespace
