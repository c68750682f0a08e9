// kforge-eval under mpirun -np 2: every misbehaving candidate costs only its own record, the rank survives,
// the shard holds each candidate exactly once with the right status and evidence, and the exit code is 0.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <vector>

#include "fault_candidates.hpp"
#include "hostile_candidates.hpp"
#include "kforge/jobs/archive.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/test_support/scratch_dir.hpp"

namespace fs = std::filesystem;
using namespace kforge;

namespace {

const fs::path kEval = fs::path(KFORGE_BINARY_DIR) / "bin" / "kforge-eval";

class EvalFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);  // CI containers run as root
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  // KFORGE_KEEP_TEST_FILES=1 keeps the manifest, shard and eval.log of passing tests too.
  void TearDown() override {
    if (HasFailure() || std::getenv("KFORGE_KEEP_TEST_FILES")) scratch_.keep();
  }

  static jobs::TaskManifest small_task() {
    jobs::TaskManifest m;
    m.campaign = "faults";
    m.generation = 3;
    m.island = 1;
    m.task = 5;
    m.target = "host";
    m.family = "gemm";
    m.backend = "host";
    m.seed = 20261202;
    m.shard_path = "shard.h5";
    auto& s = m.settings;
    s.problem = {{"M", 64}, {"N", 64}, {"K", 64}};
    s.wall_timeout_s = 3.0;
    s.cpu_limit_s = 10.0;  // above the wall limit: the spinning candidate must meet the wall clock
    s.memory_limit_mb = 256;
    s.file_limit_mb = 16;
    s.compile_timeout_s = 120.0;
    s.compile_flags = "-O1";
    s.min_repeats = 3;
    s.max_repeats = 5;
    s.time_cap_s = 0.5;
    s.baselines = {"reference"};
    return m;
  }

  // Runs kforge-eval under mpirun; returns its exit code, keeps its output in log_.
  int run_eval(int ranks, const fs::path& manifest) {
    const fs::path log = dir_ / "eval.log";
    std::ostringstream cmd;
    cmd << KFORGE_MPIRUN << " -np " << ranks << " --oversubscribe " << kEval << " --manifest " << manifest
        << " --scratch " << dir_ << " > " << log << " 2>&1";
    const int status = std::system(cmd.str().c_str());
    log_.clear();
    if (std::FILE* in = std::fopen(log.c_str(), "r")) {
      char buf[4096];
      for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, in)) > 0;) log_.append(buf, n);
      std::fclose(in);
    }
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  // Runs every candidate in one task of two ranks; each must be recorded once, with its status and evidence.
  void expect_each_recorded_as_expected(const std::vector<faults::FaultCandidate>& faults) {
    jobs::TaskManifest m = small_task();
    std::map<std::string, faults::FaultCandidate> by_id;
    for (const auto& f : faults) {
      jobs::Candidate c;
      c.family = "gemm";
      c.backend = "host";
      c.source = f.source;
      c.op = "init";
      c.generation = m.generation;
      c.island = m.island;
      by_id[jobs::assign_id(c)] = f;
      m.candidates.push_back(c);
    }
    ASSERT_EQ(by_id.size(), faults.size()) << "two fault candidates share an id";
    const fs::path manifest = dir_ / "task.yaml";
    jobs::write_manifest(manifest, m);

    ASSERT_EQ(run_eval(2, manifest), 0) << log_;
    const jobs::Shard shard = jobs::read_shard(dir_ / "shard.h5");

    EXPECT_EQ(shard.task, 5);
    EXPECT_EQ(shard.generation, 3);
    EXPECT_EQ(shard.target, "host");
    EXPECT_EQ(shard.provenance.campaign, "faults");
    EXPECT_EQ(shard.provenance.creator, "kforge");
    EXPECT_FALSE(shard.provenance.version.empty());
    ASSERT_EQ(shard.records.size(), faults.size()) << log_;
    std::set<std::string> seen;
    std::set<int> ranks;
    for (const auto& r : shard.records) {
      ASSERT_TRUE(by_id.count(r.candidate_id)) << "unknown candidate " << r.candidate_id;
      EXPECT_TRUE(seen.insert(r.candidate_id).second) << "candidate recorded twice: " << r.candidate_id;
      const auto& f = by_id.at(r.candidate_id);
      SCOPED_TRACE(f.name + ": " + r.evidence);
      EXPECT_EQ(r.status, f.expected) << jobs::to_string(r.status);
      EXPECT_FALSE(r.evidence.empty());
      if (!f.evidence_mentions.empty()) {
        EXPECT_NE(r.evidence.find(f.evidence_mentions), std::string::npos);
      }
      EXPECT_EQ(r.source, f.source);
      EXPECT_EQ(r.target, "host");
      EXPECT_FALSE(r.host.empty());
      EXPECT_FALSE(r.evaluated_at.empty());
      ranks.insert(r.rank);
    }
    EXPECT_EQ(ranks, (std::set<int>{0, 1})) << "both ranks should have pulled work\n" << log_;
  }

  // Runs kforge-eval like run_eval, but kills mpirun and everything under it with SIGKILL (as an out-of-memory killer
  // or a node fault would) as soon as the ranks' journals show candidate `id` started for the `nth` time: mpirun runs
  // in a process group of its own (setsid), so no rank of a killed run lives on into the next. Returns mpirun's code.
  int run_eval_killed_at_start(int ranks, const fs::path& manifest, const std::string& id, int nth) {
    const fs::path script = dir_ / "kill_when_started.sh";
    std::ofstream(script) << "setsid " << KFORGE_MPIRUN << " -np " << ranks << " --oversubscribe " << kEval
                          << " --manifest " << manifest << " --scratch " << dir_ << " >> " << dir_ / "killed.log"
                          << " 2>&1 &\n"
                          << "pid=$!\n"
                          << "for i in $(seq 1 1200); do\n"
                          << "  n=$(cat " << dir_ << "/shard.h5.rank*.journal 2>/dev/null | grep -c '^start " << id
                          << "$')\n"
                          << "  [ \"$n\" -ge " << nth << " ] && break\n"
                          << "  sleep 0.05\n"
                          << "done\n"
                          << "kill -9 -- -$pid\n"
                          << "wait $pid\n";
    const int status = std::system(("bash " + script.string()).c_str());
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  }

  kforge::test_support::ScratchDir scratch_{"faults-" + kforge::test_support::current_test_name()};
  const fs::path dir_ = scratch_.path();
  std::string log_;
};

}  // namespace

TEST_F(EvalFaults, EveryMisbehavingCandidateIsRecordedOnceWithItsStatusAndEvidence) {
  expect_each_recorded_as_expected(faults::fault_candidates());
}

// docs/isolation.md, attacked: each hostile candidate gets its own record only (an attack that worked would turn
// its ok into wrong_result), leaves no file outside its scratch folder, and the honest ones are unaffected.
TEST_F(EvalFaults, HostileCandidatesReachNothingButTheirOwnRecord) {
  const fs::path cwd_probe = fs::current_path() / "pwned-cwd";
  fs::remove("/tmp/kforge-pwned-by-candidate");
  fs::remove(cwd_probe);
  auto candidates = faults::hostile_candidates(dir_.string());
  const auto honest = faults::fault_candidates();
  for (const auto& f : honest)
    if (f.name == "naive and correct") candidates.push_back(f);
  expect_each_recorded_as_expected(candidates);
  EXPECT_EQ(log_.find("ATTACK SUCCEEDED"), std::string::npos) << log_;
  for (const fs::path& planted : {dir_ / "pwned-write", cwd_probe, fs::path("/tmp/kforge-pwned-by-candidate")}) {
    EXPECT_FALSE(fs::exists(planted)) << planted << " was written by a candidate";
  }
}

// A candidate in flight each time its task dies is blamed after three deaths: the fourth run records it as crash
// without running it, evaluates the others, and the task ends with a shard. Candidates that were in flight at a
// death are evaluated alone first, so a later death points at one candidate only.
TEST_F(EvalFaults, ACandidateInFlightAtThreeDeathsOfItsTaskIsBlamedNotTheNode) {
  jobs::TaskManifest m = small_task();
  const std::string slow_first_call = R"(#include <unistd.h>
extern "C" void kforge_gemm(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc) {
  static bool slept = false;
  if (!slept) { slept = true; usleep(1500000); }
  for (int i = 0; i < M; ++i)
    for (int j = 0; j < N; ++j) {
      float sum = 0.0f;
      for (int k = 0; k < K; ++k) sum += A[i * lda + k] * B[k * ldb + j];
      C[i * ldc + j] = sum;
    }
}
)";
  std::string doomed;
  for (int n = 0; n < 4; ++n) {
    jobs::Candidate c;
    c.family = "gemm";
    c.backend = "host";
    c.source =
        n == 0 ? slow_first_call : faults::fault_candidates().back().source + "// honest " + std::to_string(n) + "\n";
    c.op = "init";
    c.generation = m.generation;
    c.island = m.island;
    c.id = jobs::assign_id(c);
    if (n == 0) doomed = c.id;
    m.candidates.push_back(c);
  }
  const fs::path manifest = dir_ / "task.yaml";
  jobs::write_manifest(manifest, m);
  for (int death = 1; death <= 3; ++death) {
    EXPECT_NE(run_eval_killed_at_start(2, manifest, doomed, death), 0) << "run " << death << " was not killed";
    ASSERT_FALSE(fs::exists(dir_ / "shard.h5")) << "a killed run wrote a shard";
  }
  ASSERT_EQ(run_eval(2, manifest), 0) << log_;
  const jobs::Shard shard = jobs::read_shard(dir_ / "shard.h5");
  ASSERT_EQ(shard.records.size(), 4u);
  for (const auto& r : shard.records) {
    SCOPED_TRACE(r.candidate_id + ": " + r.evidence);
    if (r.candidate_id == doomed) {
      EXPECT_EQ(r.status, jobs::Status::crash);
      EXPECT_NE(r.evidence.find("died 3 times"), std::string::npos);
    } else {
      EXPECT_EQ(r.status, jobs::Status::ok);
    }
  }
  EXPECT_EQ(log_.find(doomed.substr(0, 8) + ".. was in flight"), std::string::npos)
      << "the blamed candidate ran again\n"
      << log_;
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_NE(entry.path().extension(), ".journal") << "journal left after the shard was written: " << entry.path();
}

TEST_F(EvalFaults, CorrectCandidateGetsTimesAndASpeedupOverTheReference) {
  jobs::TaskManifest m = small_task();
  jobs::Candidate c;
  c.family = "gemm";
  c.backend = "host";
  c.source = faults::fault_candidates().back().source;
  jobs::assign_id(c);
  m.candidates = {c};
  const fs::path manifest = dir_ / "task.yaml";
  jobs::write_manifest(manifest, m);

  ASSERT_EQ(run_eval(1, manifest), 0) << log_;
  const jobs::Shard shard = jobs::read_shard(dir_ / "shard.h5");
  ASSERT_EQ(shard.records.size(), 1u);
  const auto& r = shard.records[0];
  ASSERT_EQ(r.status, jobs::Status::ok) << r.evidence;
  EXPECT_GE(r.sample_count, 3);
  EXPECT_EQ(r.samples_ms.size(), static_cast<std::size_t>(r.sample_count));
  EXPECT_LE(r.time_min_ms, r.time_median_ms);
  EXPECT_GT(r.speedup, 0.0);
  EXPECT_GE(r.compile_ms, 0.0);
  ASSERT_EQ(shard.baselines.size(), 1u);
  EXPECT_EQ(shard.baselines[0].name, "reference");
  EXPECT_EQ(shard.baselines[0].task, 5);
  EXPECT_NE(log_.find("[rank 0] " + c.id.substr(0, 8) + ".. ok"), std::string::npos) << log_;
}

TEST_F(EvalFaults, UnreadableManifestExitsWithUsageCode) {
  const fs::path manifest = dir_ / "broken.yaml";
  std::ofstream(manifest) << "campaign: [unterminated\n";
  EXPECT_EQ(run_eval(1, manifest), 2) << log_;
  EXPECT_NE(log_.find("broken.yaml"), std::string::npos) << log_;
}

TEST_F(EvalFaults, UnwritableShardPathIsAnInfrastructureError) {
  jobs::TaskManifest m = small_task();
  m.settings.baselines.clear();
  m.shard_path = "/proc/kforge-cannot-write-here/shard.h5";
  const fs::path manifest = dir_ / "task.yaml";
  jobs::write_manifest(manifest, m);
  EXPECT_EQ(run_eval(1, manifest), 3) << log_;
  EXPECT_NE(log_.find("infrastructure error"), std::string::npos) << log_;
}
