#pragma once
// The spool directory kforged watches (docs/daemon.md). Everything the daemon knows lives here, so a daemon
// killed at any instant and restarted picks up exactly where it was:
//   SPOOL/kforged.pid                 pid of the daemon; flock-ed while it runs (one daemon per spool)
//   SPOOL/requests/*.req              submit and cancel requests, written atomically by `kforge submit|cancel`
//   SPOOL/campaigns/NAME/             the campaign directory (same layout as `kforge run --out`), plus:
//   SPOOL/campaigns/NAME/kforge.log   stdout + stderr of the `kforge run` child driving it
//   SPOOL/campaigns/NAME/CANCELLED    cancelled by request: never restarted (a re-submit clears it)
//   SPOOL/campaigns/NAME/FAILED       gave up after repeated failures; holds the reason (a re-submit clears it)
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/scheduler/campaign_dir.hpp"

namespace kforge::scheduler::daemon {

// A spool that cannot be used (missing and not creatable, not writable, held by another daemon): a fatal
// configuration error, kforged exits 2 so that systemd does not restart it in a loop.
class SpoolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// $KFORGE_SPOOL when set, else /var/spool/kforge.
std::filesystem::path default_spool_path();

// Campaign names become directory names: letters, digits, '.', '_', '-', not starting with '.'.
bool is_valid_campaign_name(const std::string& name);

class Spool {
 public:
  explicit Spool(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path campaigns_dir() const { return root_ / "campaigns"; }
  std::filesystem::path requests_dir() const { return root_ / "requests"; }
  std::filesystem::path pid_file() const { return root_ / "kforged.pid"; }

  CampaignDir campaign(const std::string& name) const { return CampaignDir(campaigns_dir() / name); }
  std::filesystem::path child_log(const std::string& name) const { return campaigns_dir() / name / "kforge.log"; }
  std::filesystem::path cancelled_marker(const std::string& name) const { return campaigns_dir() / name / "CANCELLED"; }
  std::filesystem::path failed_marker(const std::string& name) const { return campaigns_dir() / name / "FAILED"; }

  // Creates SPOOL, SPOOL/campaigns and SPOOL/requests; throws SpoolError naming the path that failed.
  void create_layout() const;
  // Names of the campaigns in SPOOL/campaigns (folders holding a campaign.yaml), sorted.
  std::vector<std::string> campaign_names() const;
  // True while some process (a kforged) holds the flock on SPOOL/kforged.pid.
  bool daemon_is_running() const;

 private:
  std::filesystem::path root_;
};

// What the campaign directory says about a campaign, without any daemon's memory.
struct StoredState {
  int generations_done = 0;
  int generations_planned = 0;
  bool cancelled = false;
  bool failed = false;
  std::string failure_reason;  // FAILED's text
  bool done() const { return generations_done >= generations_planned; }
  bool finished() const { return done() || cancelled || failed; }  // nothing left for a daemon to do
};

// Reads SPOOL/campaigns/NAME (campaign.yaml, generation files, markers). Throws std::runtime_error naming the
// file when the directory is inconsistent.
StoredState read_stored_state(const Spool& spool, const std::string& name);

// The pid written in DIR/kforge.lock while some process holds that lock (a `kforge run`, perhaps one a dead
// daemon left that is still stopping); 0 when nobody holds it, -1 when held but the pid is unreadable.
long campaign_driver_pid(const CampaignDir& dir);

// An exclusive flock on SPOOL/kforged.pid holding this process's pid, for the object's lifetime (the kernel
// releases it when the process dies, kill -9 included). Throws SpoolError naming the holder's pid.
class SpoolLock {
 public:
  explicit SpoolLock(const Spool& spool);
  ~SpoolLock();
  SpoolLock(const SpoolLock&) = delete;
  SpoolLock& operator=(const SpoolLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace kforge::scheduler::daemon
