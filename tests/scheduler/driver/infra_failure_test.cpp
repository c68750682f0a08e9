// A generation that failed for infrastructure reasons stops the campaign (infra_failure.hpp).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/driver/infra_failure.hpp"

namespace fs = std::filesystem;
using namespace kforge;
using namespace kforge::scheduler;

namespace {

jobs::EvalRecord record(jobs::Status status, const std::string& evidence) {
  jobs::EvalRecord r;
  r.status = status;
  r.evidence = evidence;
  return r;
}

struct InfraFailureTest : ::testing::Test {
  fs::path root = fs::temp_directory_path() / ("kforge-infra-" + std::to_string(::getpid()));
  CampaignDir dir{root};
  std::vector<jobs::TaskManifest> tasks{jobs::TaskManifest{}, jobs::TaskManifest{}};
  void SetUp() override { fs::create_directories(dir.generation_dir(4)); }
  void TearDown() override { fs::remove_all(root); }
};

}  // namespace

TEST_F(InfraFailureTest, AWholeGenerationOfInfraErrorsStopsWithTheCausesAndWritesThemDown) {
  Gathered g;
  g.records = {record(jobs::Status::infra_error, "task 0 produced no usable record: slurmd says no"),
               record(jobs::Status::infra_error, "task 1 produced no usable record: slurmd says no")};
  const std::map<int, std::string> failed{{0, "attempt 3 Slurm array task 812_0 FAILED (JobLaunchFailure); more"},
                                          {1, "attempt 3 Slurm array task 812_1 FAILED (JobLaunchFailure); more"}};
  const auto why = infrastructure_diagnosis(dir, 4, tasks, failed, g, 1.0);
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("generation 4 stopped the campaign: 2 of 2 records"), std::string::npos) << *why;
  EXPECT_NE(why->find("[2x] attempt # Slurm array task #_# FAILED (JobLaunchFailure)"), std::string::npos) << *why;
  EXPECT_NE(why->find("slurmd says no"), std::string::npos) << "the first record's evidence is shown";
  const std::string file = jobs::read_text_file(dir.generation_dir(4) / "infra-failure.txt");
  EXPECT_NE(file.find("task 1: attempt 3 Slurm array task 812_1"), std::string::npos) << file;
}

TEST_F(InfraFailureTest, AGenerationWithOneUsableRecordGoesOnAtTheDefaultThreshold) {
  Gathered g;
  g.records = {record(jobs::Status::infra_error, "no GPU"), record(jobs::Status::wrong_result, "max abs error 3")};
  EXPECT_FALSE(infrastructure_diagnosis(dir, 4, tasks, {}, g, 1.0).has_value());
  EXPECT_FALSE(fs::exists(dir.generation_dir(4) / "infra-failure.txt"));
  EXPECT_TRUE(infrastructure_diagnosis(dir, 4, tasks, {}, g, 0.5).has_value()) << "half failed, threshold 0.5";
}

TEST_F(InfraFailureTest, CandidateFailuresAreNeverInfrastructure) {
  Gathered g;
  g.records = {record(jobs::Status::crash, "SIGSEGV"), record(jobs::Status::compile_error, "error: x")};
  EXPECT_FALSE(infrastructure_diagnosis(dir, 4, tasks, {}, g, 0.01).has_value());
}
