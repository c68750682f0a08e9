#pragma once
// The campaign directory IS the campaign's state (ARCHITECTURE.md). This names every path in it, once.
//   DIR/campaign.yaml, DIR/site.yaml         the configs the campaign was started with (resume checks them)
//   DIR/campaign.origin                     the absolute path of the campaign file it was started from: the
//                                           stored copy's relative paths (model.weights, replay_cache, ...) mean
//                                           paths next to that file
//   DIR/gNNNN/tasks/TTTT.yaml               task manifests; DIR/gNNNN/tasks/COMPLETE marks the set as whole
//   DIR/gNNNN/shards/TTTT.h5                what each task produced (atomic)
//   DIR/gNNNN/logs/TTTT.log                 the task's stdout + stderr
//   DIR/gen-NNNN.h5, DIR/campaign.h5        immutable generation files and their index
//   DIR/kforge.lock                         held (flock) by the one process driving the campaign
//   DIR/CANCELLED                           `kforge cancel` stopped it; a driver that sees it cancels its jobs
//   DIR/gNNNN/infra-failure.txt             why that generation stopped the campaign (infra_failure.hpp)
//   DIR/confirm/{tasks,shards,logs,slurm}   the confirmation's round tasks (the stage kConfirmStage)
//   DIR/confirmation.h5                     the confirmed speedups (kforge confirm, docs/archive-schema.md)
#include <filesystem>
#include <string>

namespace kforge::scheduler {

// The confirmation's tasks run through the executors as this pseudo-generation: generation_dir(kConfirmStage)
// is DIR/confirm, so manifests, shards, logs and Slurm ledgers land where a generation's would, apart from them.
inline constexpr int kConfirmStage = -1;

class CampaignDir {
 public:
  explicit CampaignDir(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path campaign_config() const { return root_ / "campaign.yaml"; }
  std::filesystem::path campaign_origin() const { return root_ / "campaign.origin"; }
  std::filesystem::path site_config() const { return root_ / "site.yaml"; }
  std::filesystem::path lock_file() const { return root_ / "kforge.lock"; }
  std::filesystem::path cancelled_marker() const { return root_ / "CANCELLED"; }
  std::filesystem::path index_file() const { return root_ / "campaign.h5"; }
  std::filesystem::path confirmation_file() const { return root_ / "confirmation.h5"; }
  std::filesystem::path generation_file(int g) const;
  std::filesystem::path generation_dir(int g) const;  // DIR/g0007
  std::filesystem::path tasks_dir(int g) const { return generation_dir(g) / "tasks"; }
  std::filesystem::path tasks_complete_marker(int g) const { return tasks_dir(g) / "COMPLETE"; }
  std::filesystem::path manifest(int g, int task) const;
  std::filesystem::path shard(int g, int task) const;
  std::filesystem::path log(int g, int task) const;

  // Generations with a generation file, 0..n-1 without gaps (a gap is an error naming the missing file).
  int completed_generations() const;

 private:
  std::filesystem::path root_;
};

// The campaign a directory stores (DIR/campaign.yaml), its relative paths read as relative to the file it was
// started from (DIR/campaign.origin; the directory itself for campaigns started before that file existed).
// Throws ConfigError as load_campaign does.
struct CampaignConfig;
CampaignConfig load_stored_campaign(const CampaignDir& dir);

// The pid of the process driving the campaign now (holding DIR/kforge.lock): 0 when none, -1 when the holder's
// pid cannot be read. Throws std::runtime_error when DIR/kforge.lock is not a regular file (never followed
// through a symlink, never blocking on a FIFO).
long campaign_driver_pid(const CampaignDir& dir);

// An exclusive flock on DIR/kforge.lock for the lifetime of the object; released by the kernel if the process
// dies (kill -9 included). Throws std::runtime_error naming the holder's pid when another process holds it.
class CampaignLock {
 public:
  explicit CampaignLock(const std::filesystem::path& lock_file);
  ~CampaignLock();
  CampaignLock(const CampaignLock&) = delete;
  CampaignLock& operator=(const CampaignLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace kforge::scheduler
