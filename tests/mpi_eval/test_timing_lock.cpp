// The node-wide timing lock (mpi_eval/src/timing_lock.hpp): two processes never hold it at once, a holder that
// dies releases it, a sandboxed candidate never holds its descriptor, and the cascade waits for it.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "cascade.hpp"
#include "kforge/kernels/backend.hpp"
#include "kforge/mpi_eval/sandbox.hpp"
#include "kforge/test_support/scratch_dir.hpp"
#include "timing_lock.hpp"

namespace fs = std::filesystem;
using namespace kforge;
using mpi_eval::TimingLock;

namespace {

class TimingLockTest : public ::testing::Test {
 protected:
  // True when another open file description holds lock_path_ (a non-blocking try fails).
  bool held_elsewhere() const {
    const int fd = ::open(lock_path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
    ::close(fd);
    return held;
  }

  test_support::ScratchDir dir_{"timing-lock-" + test_support::current_test_name()};
  const fs::path root_ = dir_.path();
  const fs::path lock_path_ = root_ / "timing.lock";
};

void append_line(int fd, const std::string& line) {
  ASSERT_EQ(::write(fd, line.data(), line.size()), ssize_t(line.size()));
}

// The lines of a file written with O_APPEND by several processes.
std::vector<std::string> lines_of(const fs::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// Blocked flock waiters on inode `ino`, from /proc/locks ("N: -> FLOCK ADVISORY WRITE pid maj:min:ino 0 EOF").
int blocked_waiters(ino_t ino) {
  std::ifstream in("/proc/locks");
  int waiters = 0;
  const std::string tail = ":" + std::to_string(ino);
  for (std::string line; std::getline(in, line);) {
    if (line.find("->") == std::string::npos) continue;
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      if (word.size() > tail.size() && word.ends_with(tail) && word.find(':') != word.rfind(':')) ++waiters;
    }
  }
  return waiters;
}

}  // namespace

TEST_F(TimingLockTest, TwoProcessesNeverHoldTheTimingPhaseAtOnce) {
  const fs::path log = root_ / "phases.log";
  constexpr int kRounds = 150;
  std::vector<pid_t> workers;
  for (int w = 0; w < 2; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
      if (fd < 0) ::_exit(3);
      const std::string me = std::to_string(::getpid());
      for (int i = 0; i < kRounds; ++i) {
        TimingLock lock(lock_path_);
        if (!lock.held()) ::_exit(4);
        append_line(fd, "enter " + me + "\n");
        ::usleep(100);  // widens the window in which a second holder would show up between enter and leave
        append_line(fd, "leave " + me + "\n");
      }
      ::_exit(0);
    }
    workers.push_back(pid);
  }
  for (pid_t pid : workers) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "worker failed, status " << status;
  }
  const std::vector<std::string> lines = lines_of(log);
  ASSERT_EQ(lines.size(), 2u * 2u * kRounds);
  for (std::size_t i = 0; i < lines.size(); i += 2) {
    ASSERT_TRUE(lines[i].starts_with("enter ")) << "line " << i << ": " << lines[i];
    ASSERT_EQ(lines[i + 1], "leave " + lines[i].substr(6)) << "line " << i + 1 << ": another process entered";
  }
}

TEST_F(TimingLockTest, AHolderThatIsKilledReleasesTheLock) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    TimingLock lock(lock_path_);
    const char byte = lock.held() ? 'y' : 'n';
    if (::write(ready[1], &byte, 1) != 1) ::_exit(3);
    for (;;) ::pause();  // a "hung" holder: only SIGKILL ends it
  }
  ::close(ready[1]);
  char byte = 0;
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  ASSERT_EQ(byte, 'y');
  EXPECT_TRUE(held_elsewhere()) << "the holder should exclude others";
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  EXPECT_FALSE(held_elsewhere()) << "the kernel drops an flock when its holder dies";
  TimingLock again(lock_path_);
  EXPECT_TRUE(again.held()) << again.problem();
}

TEST_F(TimingLockTest, TheSandboxedCandidateNeverHoldsTheLockDescriptor) {
  TimingLock lock(lock_path_);
  ASSERT_TRUE(lock.held()) << lock.problem();
  struct stat st {};
  ASSERT_EQ(::stat(lock_path_.c_str(), &st), 0);
  // The body runs where candidate code runs; it reports every descriptor that refers to the lock file.
  const mpi_eval::ChildOutcome o = mpi_eval::run_sandboxed(mpi_eval::Limits{}, root_, [&] {
    std::string found;
    for (const auto& entry : fs::directory_iterator("/proc/self/fd")) {
      struct stat fd_st {};
      if (::stat(entry.path().c_str(), &fd_st) == 0 && fd_st.st_ino == st.st_ino && fd_st.st_dev == st.st_dev) {
        found += entry.path().filename().string() + " ";
      }
    }
    return "fds:" + found;
  });
  ASSERT_EQ(o.end, mpi_eval::ChildEnd::completed) << o.describe() << o.output_tail;
  EXPECT_EQ(o.payload, "fds:") << "the candidate's process can release or keep the node's timing lock";
  EXPECT_TRUE(held_elsewhere()) << "the harness still holds it after the child ended";
}

TEST_F(TimingLockTest, MissingFolderIsAProblemNotACrash) {
  TimingLock lock(root_ / "no-such-folder" / "timing.lock");
  EXPECT_FALSE(lock.held());
  EXPECT_NE(lock.problem().find("no-such-folder"), std::string::npos) << lock.problem();
}

TEST(TimingLockPath, EnvironmentChoosesTheFileElseOnePerHostInTheTempFolder) {
  ::setenv("KFORGE_TIMING_LOCK", "/somewhere/else.lock", 1);
  EXPECT_EQ(mpi_eval::timing_lock_path(), fs::path("/somewhere/else.lock"));
  ::unsetenv("KFORGE_TIMING_LOCK");
  const fs::path p = mpi_eval::timing_lock_path();
  EXPECT_EQ(p.parent_path(), fs::temp_directory_path());
  EXPECT_TRUE(p.filename().string().starts_with("kforge-timing-")) << p;
}

// Host backends take the node's lock, cuda backends their GPUs' (ranks given the same GPUs share it, ranks on GPUs
// of their own do not), replay none.
TEST(TimingLockPath, HostBackendsTakeTheNodesLockCudaBackendsTheirGpusReplayNone) {
  ::unsetenv("KFORGE_TIMING_LOCK");
  for (const char* family : {"gemm", "kda", "engine"})
    EXPECT_EQ(mpi_eval::timing_lock_for(*kernels::make_backend("host", family)), mpi_eval::timing_lock_path())
        << family;
  EXPECT_FALSE(mpi_eval::timing_lock_for(*kernels::make_backend("replay", "gemm"))) << "it answers from a space";
  const char* before = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string saved = before != nullptr ? before : "";
  ::unsetenv("CUDA_VISIBLE_DEVICES");
  const fs::path all = mpi_eval::device_timing_lock_path();
  EXPECT_EQ(all.parent_path(), mpi_eval::timing_lock_path().parent_path());
  EXPECT_NE(all.filename().string().find("-gpu-all.lock"), std::string::npos) << all;
  ::setenv("CUDA_VISIBLE_DEVICES", "1", 1);
  const fs::path one = mpi_eval::device_timing_lock_path();
  ::setenv("CUDA_VISIBLE_DEVICES", "GPU-5f3a/2,3", 1);
  const fs::path odd = mpi_eval::device_timing_lock_path();
  EXPECT_NE(one, all);
  EXPECT_NE(one, mpi_eval::timing_lock_path());
  EXPECT_EQ(odd.parent_path(), all.parent_path()) << "a slash in the variable stays in the file name: " << odd;
  EXPECT_NE(odd.filename().string().find("-gpu-GPU-5f3a_2_3.lock"), std::string::npos) << odd;
#ifdef KFORGE_HAVE_CUDA
  EXPECT_EQ(mpi_eval::timing_lock_for(*kernels::make_backend("cuda", "gemm")), odd);
  EXPECT_EQ(mpi_eval::timing_lock_for(*kernels::make_backend("cuda", "engine")), odd);
#endif
  if (saved.empty())
    ::unsetenv("CUDA_VISIBLE_DEVICES");
  else
    ::setenv("CUDA_VISIBLE_DEVICES", saved.c_str(), 1);
}

TEST_F(TimingLockTest, TheCascadeWaitsForTheLockBeforeItRunsTheCandidate) {
  ::setenv("KFORGE_TIMING_LOCK", lock_path_.c_str(), 1);
  jobs::TaskManifest m;
  m.target = "host";
  m.family = "gemm";
  m.backend = "host";
  m.settings.compile_flags = "-O0";
  m.settings.problem = {{"M", 8}, {"N", 8}, {"K", 8}};
  jobs::Candidate c;
  c.family = "gemm";
  c.backend = "host";
  c.source = R"(extern "C" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb,
                                          float* C, int ldc) {
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float s = 0.0f;
      for (int k = 0; k < K; ++k) s += A[i * lda + k] * B[k * ldb + j];
      C[i * ldc + j] = s;
    }
})";
  jobs::assign_id(c);
  auto backend = kernels::make_backend("host", "gemm");
  auto held = std::make_unique<TimingLock>(lock_path_);
  ASSERT_TRUE(held->held()) << held->problem();
  struct stat st {};
  ASSERT_EQ(::stat(lock_path_.c_str(), &st), 0);

  std::atomic<bool> done{false};
  jobs::EvalRecord r;
  std::thread evaluation([&] {
    r = mpi_eval::evaluate_candidate(*backend, c, m, root_ / "scratch", 0);
    done = true;
  });
  // No clock: wait until the evaluation is blocked on the lock (the test's TIMEOUT bounds a failure to block).
  while (blocked_waiters(st.st_ino) == 0 && !done) ::usleep(10000);
  EXPECT_FALSE(done) << "the candidate ran while another process held the timing lock";
  held.reset();
  evaluation.join();
  ::unsetenv("KFORGE_TIMING_LOCK");
  EXPECT_EQ(r.status, jobs::Status::ok) << r.evidence;
  EXPECT_GE(r.sample_count, 1);
}
