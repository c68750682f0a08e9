#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/config/campaign_change.hpp"
#include "kforge/scheduler/config/campaign_dir.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace fs = std::filesystem;
using namespace kforge::scheduler;
namespace jobs = kforge::jobs;

namespace {
fs::path fresh_dir(const std::string& name) {
  fs::path p = fs::temp_directory_path() / ("kforge-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(p);
  fs::create_directories(p);
  return p;
}
}  // namespace

TEST(CampaignDir, NamesEveryPathInsideTheRoot) {
  CampaignDir d("/runs/x");
  EXPECT_EQ(d.generation_file(7), "/runs/x/gen-0007.h5");
  EXPECT_EQ(d.manifest(7, 12), "/runs/x/g0007/tasks/0012.yaml");
  EXPECT_EQ(d.shard(7, 12), "/runs/x/g0007/shards/0012.h5");
  EXPECT_EQ(d.log(0, 3), "/runs/x/g0000/logs/0003.log");
}

TEST(CampaignDir, CompletedGenerationsCountsWithoutGapsAndRejectsAGap) {
  fs::path root = fresh_dir("gens");
  CampaignDir d(root);
  EXPECT_EQ(d.completed_generations(), 0);
  jobs::write_text_file_atomically(d.generation_file(0), "x");
  jobs::write_text_file_atomically(d.generation_file(1), "x");
  EXPECT_EQ(d.completed_generations(), 2);
  jobs::write_text_file_atomically(d.generation_file(3), "x");
  EXPECT_THROW(d.completed_generations(), std::runtime_error);
  fs::remove_all(root);
}

TEST(CampaignLock, SecondHolderIsRefusedWithThePidOfTheFirst) {
  fs::path root = fresh_dir("lock");
  CampaignDir d(root);
  {
    CampaignLock first(d.lock_file());
    try {
      CampaignLock second(d.lock_file());
      FAIL() << "a second lock was granted";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find(std::to_string(::getpid())), std::string::npos) << e.what();
    }
  }
  EXPECT_NO_THROW(CampaignLock again(d.lock_file()));  // released with the first
  fs::remove_all(root);
}

TEST(PrepareCampaignDir, RefusesToResumeWithADifferentCampaignFile) {
  fs::path root = fresh_dir("prepare");
  CampaignDir d(root);
  CampaignConfig c;
  c.text = "campaign: {name: a}\n";
  c.file = "a.yaml";
  SiteConfig s;
  s.text = "site: {name: local}\n";
  prepare_campaign_dir(d, c, s);
  EXPECT_EQ(jobs::read_text_file(d.campaign_config()), c.text);
  EXPECT_NO_THROW(prepare_campaign_dir(d, c, s));
  c.text = "campaign: {name: b}\n";
  EXPECT_THROW(prepare_campaign_dir(d, c, s), std::runtime_error);
  fs::remove_all(root);
}

TEST(WriteFileAtomic, LeavesNoTemporaryBehind) {
  fs::path root = fresh_dir("atomic");
  jobs::write_text_file_atomically(root / "f.txt", "hello");
  EXPECT_EQ(jobs::read_text_file(root / "f.txt"), "hello");
  int files = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(root)) ++files;
  EXPECT_EQ(files, 1);
  EXPECT_THROW(jobs::read_text_file(root / "missing"), std::runtime_error);
  fs::remove_all(root);
}
