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

#include "fault_candidates.hpp"
#include "kforge/jobs/archive.hpp"
#include "kforge/jobs/manifest.hpp"

namespace fs = std::filesystem;
using namespace kforge;

namespace {

const fs::path kEval = fs::path(KFORGE_BINARY_DIR) / "bin" / "kforge-eval";

class EvalFaults : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("kforge-faults-" + std::to_string(::getpid()) + "-" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);  // CI containers run as root
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  // KFORGE_KEEP_TEST_FILES=1 keeps the manifest, shard and eval.log of passing tests too.
  void TearDown() override {
    if (!HasFailure() && !std::getenv("KFORGE_KEEP_TEST_FILES")) fs::remove_all(dir_);
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

  fs::path dir_;
  std::string log_;
};

}  // namespace

TEST_F(EvalFaults, EveryMisbehavingCandidateIsRecordedOnceWithItsStatusAndEvidence) {
  const auto faults = faults::fault_candidates();
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
