#pragma once
// The spool directory kforged watches (docs/daemon.md). Everything the daemon knows lives here, so a daemon
// killed at any instant and restarted picks up exactly where it was. Modes are set by kforged at start-up:
//                                         multi-user (kforged as root)          single-user (kforged as a user)
//   SPOOL/                                0711 root                             0700 the daemon's user
//   SPOOL/kforged.pid                     0644: pid of the daemon (for people and `kforge status`; never locked)
//   SPOOL/kforged.lock                    0600: flock-ed while a daemon runs (one daemon per spool); private, so no
//                                         user can hold a lock on it that keeps the daemon from starting
//   SPOOL/audit.log                       0600: one line per submit, cancel and refusal, with uid and user
//   SPOOL/accepted/USER/NAME              0600 in 0700 folders: digest of the campaign.yaml the daemon accepted
//                                         (only accepted campaigns run: a folder made by hand never does)
//   SPOOL/requests/                       1733 root (anyone drops, nobody lists)  0700
//   SPOOL/requests/*.req                  0600, owned by the submitter: its owner IS the submitter
//   SPOOL/campaigns/                      0711 root (0751 root:ADMIN)           0700
//   SPOOL/campaigns/USER/                 0700 USER (2750 USER:ADMIN with --admin-group)
//   SPOOL/campaigns/USER/NAME/            the campaign directory (same layout as `kforge run --out`), plus:
//   SPOOL/campaigns/USER/NAME/kforge.log  stdout + stderr of the `kforge run` child driving it (run as USER)
//   SPOOL/campaigns/USER/NAME/CANCELLED   cancelled by request: never restarted (a re-submit clears it)
//   SPOOL/campaigns/USER/NAME/FAILED      gave up after repeated failures; holds the reason (a re-submit clears it)
//   SPOOL/campaigns/USER/.tmp/            TMPDIR of USER's campaign processes (multi-user): made by them, theirs
// Everything below campaigns/USER is that user's and hostile input to the daemon: it reads and writes there only
// through a helper that is the user (as_user.hpp), with user_file.hpp's rules.
#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/scheduler/config/campaign_dir.hpp"

namespace kforge::scheduler::daemon {

// A spool that cannot be used (missing and not creatable, not writable, held by another daemon): a fatal
// configuration error, kforged exits 2 so that systemd does not restart it in a loop.
class SpoolError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// $KFORGE_SPOOL when set, else /var/lib/kforge (the StateDirectory= of the shipped systemd unit).
std::filesystem::path default_spool_path();

// Campaign names become directory names: letters, digits, '.', '_', '-', not starting with '.'. User names the
// same (the spool's campaigns/USER folders).
bool is_valid_campaign_name(const std::string& name);

// One campaign of the spool: names are per user, so the owner is part of its identity.
struct CampaignRef {
  std::string owner;                                      // the user name (SPOOL/campaigns/OWNER)
  std::string name;                                       // campaign.name
  std::string key() const { return owner + "/" + name; }  // log scope and audit text: "alice/gemm-small"
  bool operator<(const CampaignRef& o) const { return key() < o.key(); }
  bool operator==(const CampaignRef& o) const { return owner == o.owner && name == o.name; }
};

// How kforged lays the spool out at start-up.
struct SpoolPolicy {
  bool multi_user = false;           // kforged runs as root and serves every local user
  std::optional<gid_t> admin_group;  // --admin-group: may see and cancel every campaign
};

class Spool {
 public:
  explicit Spool(std::filesystem::path root) : root_(std::move(root)) {}

  const std::filesystem::path& root() const { return root_; }
  std::filesystem::path campaigns_dir() const { return root_ / "campaigns"; }
  std::filesystem::path requests_dir() const { return root_ / "requests"; }
  std::filesystem::path pid_file() const { return root_ / "kforged.pid"; }
  std::filesystem::path lock_file() const { return root_ / "kforged.lock"; }
  std::filesystem::path accepted_dir() const { return root_ / "accepted"; }
  std::filesystem::path audit_log() const { return root_ / "audit.log"; }
  std::filesystem::path user_dir(const std::string& owner) const { return campaigns_dir() / owner; }
  // TMPDIR of the owner's campaign processes under a multi-user daemon: no other user can enter it, so no other
  // user can hold their timing lock or take the names of their scratch folders.
  std::filesystem::path tmp_dir(const std::string& owner) const { return user_dir(owner) / ".tmp"; }

  CampaignDir campaign(const CampaignRef& c) const { return CampaignDir(user_dir(c.owner) / c.name); }
  std::filesystem::path child_log(const CampaignRef& c) const { return campaign(c).root() / "kforge.log"; }
  std::filesystem::path cancelled_marker(const CampaignRef& c) const { return campaign(c).root() / "CANCELLED"; }
  std::filesystem::path failed_marker(const CampaignRef& c) const { return campaign(c).root() / "FAILED"; }

  // Creates SPOOL, campaigns/ and requests/ and gives them the policy's owners and modes (the table above);
  // throws SpoolError naming the path that failed. Run by kforged only.
  void create_layout(const SpoolPolicy& policy) const;
  // Creates SPOOL/campaigns/OWNER for `uid`/`gid` with the policy's mode (multi-user: as root, then chown).
  void create_user_dir(const std::string& owner, uid_t uid, gid_t gid, const SpoolPolicy& policy) const;
  // Campaigns (folders holding a campaign.yaml) in every user folder this process may list, sorted.
  std::vector<CampaignRef> campaigns() const;
  // The user folders' names in campaigns/ (valid names only), sorted; the caller's own when it cannot list them.
  std::vector<std::string> owners() const;
  // Campaign names in SPOOL/campaigns/OWNER, sorted (empty when it is missing or not readable).
  std::vector<std::string> campaign_names(const std::string& owner) const;
  // True while a kforged watches the spool: whoever may open SPOOL/kforged.lock (the daemon's user) tests its
  // flock; others look for a live process named kforged, owned by the spool's owner, at the pid in kforged.pid.
  bool daemon_is_running() const;

 private:
  std::filesystem::path root_;
};

// The pid written in DIR/kforge.lock while some process holds that lock (a `kforge run`, perhaps one a dead
// daemon left that is still stopping); 0 when nobody holds it, -1 when held but the pid is unreadable.
using kforge::scheduler::campaign_driver_pid;  // campaign_dir.hpp

// An exclusive flock on SPOOL/kforged.lock (mode 0600: no other user can open it, so none can hold a lock on it
// that keeps the daemon from starting) for the object's lifetime; the kernel releases it when the process dies,
// kill -9 included. Writes this process's pid into it and into SPOOL/kforged.pid (0644, removed again at the end).
// Throws SpoolError naming the holder's pid.
class SpoolLock {
 public:
  explicit SpoolLock(const Spool& spool);
  ~SpoolLock();
  SpoolLock(const SpoolLock&) = delete;
  SpoolLock& operator=(const SpoolLock&) = delete;

 private:
  int fd_ = -1;
  std::filesystem::path pid_file_;
};

}  // namespace kforge::scheduler::daemon
