// run_sandboxed: every way a child can end is classified and described so a person understands it.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <vector>

#include "kforge/mpi_eval/child_payload.hpp"
#include "kforge/mpi_eval/sandbox.hpp"
#include "kforge/test_support/scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace kforge::mpi_eval;

namespace {

class SandboxTest : public ::testing::Test {
 protected:
  ChildOutcome run(const std::function<std::string()>& body) { return run_sandboxed(limits_, scratch_, body); }

  Limits limits_{
      .wall_s = 10.0, .cpu_s = 10.0, .memory_bytes = 256LL << 20, .file_bytes = 1LL << 20, .forbid_processes = true};
  kforge::test_support::ScratchDir dir_{"sandbox-" + kforge::test_support::current_test_name()};
  const fs::path scratch_ = dir_.path();
};

[[noreturn]] void spin_forever() {
  volatile unsigned long counter = 0;
  for (;;) counter = counter + 1;
}

}  // namespace

TEST_F(SandboxTest, LargePayloadArrivesIntact) {
  std::string big(300 * 1024, 'x');  // larger than a pipe buffer: the parent must read while the child writes
  for (std::size_t i = 0; i < big.size(); i += 97) big[i] = static_cast<char>(i % 251);
  big[0] = 'p';
  const ChildOutcome o = run([&] { return big; });
  ASSERT_EQ(o.end, ChildEnd::completed) << o.describe() << o.output_tail;
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.payload, big);
  EXPECT_TRUE(returned_normally(o));
}

TEST_F(SandboxTest, ChildRunsInsideItsScratchDirectory) {
  const ChildOutcome o = run([] { return fs::current_path().string(); });
  ASSERT_EQ(o.end, ChildEnd::completed) << o.describe();
  EXPECT_EQ(fs::path(o.payload), fs::canonical(scratch_));
}

TEST_F(SandboxTest, SegfaultIsNamedInTheDescription) {
  // A store to a page mapped without access: a segmentation fault without undefined behaviour (a null store is UB,
  // which UBSan reports instead of letting the child die by the signal; tests/run-sanitizers.sh).
  void* page = ::mmap(nullptr, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(page, MAP_FAILED);
  const ChildOutcome o = run([page]() -> std::string {
    std::puts("about to store to an inaccessible page");
    volatile int* volatile p = static_cast<int*>(page);  // both volatile: the store may not be optimised away
    *p = 42;
    return "unreachable";
  });
  ::munmap(page, 4096);
  ASSERT_EQ(o.end, ChildEnd::signalled) << o.describe() << o.payload << o.output_tail;
  EXPECT_EQ(o.signal, SIGSEGV);
  EXPECT_EQ(o.describe(), "killed by SIGSEGV (segmentation fault)");
  EXPECT_NE(o.output_tail.find("about to store to an inaccessible page"), std::string::npos) << o.output_tail;
}

TEST_F(SandboxTest, AbortIsSignalledWithSigabrt) {
  const ChildOutcome o = run([]() -> std::string { std::abort(); });
  ASSERT_EQ(o.end, ChildEnd::signalled);
  EXPECT_EQ(o.signal, SIGABRT);
  EXPECT_NE(o.describe().find("SIGABRT"), std::string::npos) << o.describe();
}

TEST_F(SandboxTest, SpinningChildIsKilledAtTheWallLimit) {
  limits_.wall_s = 1.0;
  const ChildOutcome o = run([]() -> std::string { spin_forever(); });
  ASSERT_EQ(o.end, ChildEnd::timed_out);
  EXPECT_EQ(o.describe().rfind("timed out after ", 0), 0u) << o.describe();
}

TEST_F(SandboxTest, CpuBurnBeyondCpuLimitIsSigxcpu) {
  limits_.cpu_s = 1.0;
  limits_.wall_s = 30.0;
  const ChildOutcome o = run([]() -> std::string { spin_forever(); });
  ASSERT_EQ(o.end, ChildEnd::signalled) << o.describe();
  EXPECT_EQ(o.signal, SIGXCPU);
  EXPECT_EQ(o.describe(), "exceeded CPU limit (SIGXCPU)");
}

TEST_F(SandboxTest, UnboundedAllocationIsReportedAsOutOfMemory) {
  const ChildOutcome o = run([]() -> std::string {
    std::vector<std::unique_ptr<char[]>> hoard;
    for (;;) hoard.push_back(std::make_unique<char[]>(8u << 20));
  });
  ASSERT_TRUE(is_body_error(o)) << o.describe() << o.output_tail;
  EXPECT_EQ(error_message(o).rfind(kOutOfMemoryPrefix, 0), 0u) << error_message(o);
}

namespace {

// What cuInit does in a child that runs a CUDA candidate: reserve a range of address space the size of the
// device's memory and more, without touching it. Returns "reserved" or why it was refused, and the file limit.
std::string reserve_like_a_cuda_context() {
  constexpr std::size_t kBytes = std::size_t{64} << 30;
  void* p = ::mmap(nullptr, kBytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  std::string out = p == MAP_FAILED ? std::string("refused: ") + std::strerror(errno) : "reserved";
  if (p != MAP_FAILED) ::munmap(p, kBytes);
  rlimit file{};
  ::getrlimit(RLIMIT_FSIZE, &file);
  return out + "; RLIMIT_FSIZE " + std::to_string(file.rlim_cur);
}

}  // namespace

TEST_F(SandboxTest, AddressSpaceLimitRefusesTheReservationOfACudaContext) {
  const ChildOutcome o = run(reserve_like_a_cuda_context);
  ASSERT_TRUE(returned_normally(o)) << o.describe() << o.output_tail;
  EXPECT_EQ(o.payload.rfind("refused", 0), 0u) << o.payload;
}

TEST_F(SandboxTest, WithoutTheAddressSpaceLimitACudaSizedReservationSucceedsAndOtherLimitsStay) {
  limits_.limit_address_space = false;
  const ChildOutcome o = run(reserve_like_a_cuda_context);
  ASSERT_TRUE(returned_normally(o)) << o.describe() << o.output_tail;
  EXPECT_EQ(o.payload, "reserved; RLIMIT_FSIZE " + std::to_string(limits_.file_bytes));
}

TEST_F(SandboxTest, ExitBeforeReportingIsExitedEarly) {
  const ChildOutcome o = run([]() -> std::string { std::exit(0); });
  ASSERT_EQ(o.end, ChildEnd::exited_early);
  EXPECT_EQ(o.exit_code, 0);
  EXPECT_EQ(o.describe(), "exited with code 0 before reporting a result");
}

TEST_F(SandboxTest, ProcessesAndExecAreRefusedButThreadsWork) {
  const ChildOutcome o = run([] {
    std::string report;
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(0);
    report += "fork=" + std::to_string(pid) + "/" + std::to_string(errno == EPERM) + ";";
    errno = 0;
    [[maybe_unused]] const int rc = std::system("touch made-by-system");  // glibc reports 127 when spawn fails
    report += "system_eperm=" + std::to_string(errno == EPERM) + ";";
    char* const argv[] = {const_cast<char*>("/bin/true"), nullptr};
    ::execv("/bin/true", argv);
    report += "exec_eperm=" + std::to_string(errno == EPERM) + ";";
    int value = 0;
    std::thread worker([&] { value = 7; });
    worker.join();
    report += "thread=" + std::to_string(value);
    return report;
  });
  ASSERT_EQ(o.end, ChildEnd::completed) << o.describe() << o.output_tail;
  EXPECT_EQ(o.payload, "fork=-1/1;system_eperm=1;exec_eperm=1;thread=7");
  EXPECT_FALSE(fs::exists(scratch_ / "made-by-system"));
}

TEST_F(SandboxTest, ProcessesWorkWhenNotForbidden) {
  limits_.forbid_processes = false;
  const ChildOutcome o = run([] {
    const pid_t pid = ::fork();
    if (pid == 0) ::_exit(7);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return "grandchild exit " + std::to_string(WEXITSTATUS(status));
  });
  ASSERT_EQ(o.end, ChildEnd::completed) << o.describe();
  EXPECT_EQ(o.payload, "grandchild exit 7");
}

TEST_F(SandboxTest, WritingPastTheFileLimitIsSigxfsz) {
  const ChildOutcome o = run([] {
    std::ofstream out("huge.bin", std::ios::binary);
    const std::string block(64 * 1024, 'z');
    for (int i = 0; i < 64; ++i) out.write(block.data(), static_cast<std::streamsize>(block.size())).flush();
    return std::string("wrote 4 MiB");
  });
  ASSERT_EQ(o.end, ChildEnd::signalled) << o.describe();
  EXPECT_EQ(o.signal, SIGXFSZ);
  EXPECT_EQ(o.describe(), "exceeded file size limit (SIGXFSZ)");
}

TEST_F(SandboxTest, BodyExceptionIsReportedAsAnErrorPayload) {
  const ChildOutcome o = run([]() -> std::string { throw std::runtime_error("verify could not load kernel.so"); });
  ASSERT_TRUE(is_body_error(o)) << o.describe();
  EXPECT_EQ(error_message(o), "verify could not load kernel.so");
  EXPECT_EQ(o.describe(), "raised an exception: verify could not load kernel.so");
}

TEST_F(SandboxTest, ChattyChildKeepsOnlyTheTailOfItsOutput) {
  const ChildOutcome o = run([] {
    for (int i = 0; i < 20000; ++i) std::printf("line %d of chatter\n", i);
    std::printf("LAST LINE\n");
    return std::string("done");
  });
  ASSERT_EQ(o.end, ChildEnd::completed) << o.describe();
  EXPECT_LT(o.output_tail.size(), 10u * 1024);
  EXPECT_NE(o.output_tail.find("LAST LINE"), std::string::npos);
  EXPECT_NE(o.output_tail.find("earlier bytes omitted"), std::string::npos);
  EXPECT_EQ(o.output_tail.find("line 0 of chatter"), std::string::npos);
}

TEST_F(SandboxTest, GarbageOnTheResultPipeIsABadMessage) {
  const ChildOutcome o = run([] {
    [[maybe_unused]] const auto n = ::write(3, "forged result", 13);
    return std::string("honest result");
  });
  ASSERT_EQ(o.end, ChildEnd::bad_message) << o.describe();
  EXPECT_NE(o.output_tail.find("[kforge sandbox]"), std::string::npos) << o.output_tail;
}

TEST_F(SandboxTest, MissingScratchDirectoryIsASandboxError) {
  const ChildOutcome o = run_sandboxed(limits_, scratch_ / "does-not-exist", [] { return std::string("x"); });
  ASSERT_TRUE(is_sandbox_error(o)) << o.describe();
  EXPECT_NE(error_message(o).find("does-not-exist"), std::string::npos);
}
