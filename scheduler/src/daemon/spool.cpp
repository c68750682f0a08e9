#include "kforge/scheduler/daemon/spool.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/config.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

fs::path default_spool_path() {
  if (const char* env = std::getenv("KFORGE_SPOOL"); env && *env) return env;
  return "/var/spool/kforge";
}

bool is_valid_campaign_name(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.size() > 200) return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '.' || c == '_' || c == '-'; });
}

void Spool::create_layout() const {
  for (const fs::path& p : {root_, campaigns_dir(), requests_dir()}) {
    std::error_code ec;
    fs::create_directories(p, ec);
    if (ec) throw SpoolError(p.string() + ": cannot create the spool folder: " + ec.message());
    if (::access(p.c_str(), W_OK | X_OK) != 0) {
      throw SpoolError(p.string() + ": the spool folder is not writable by this user: " + std::strerror(errno));
    }
  }
}

std::vector<std::string> Spool::campaign_names() const {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(campaigns_dir(), ec)) {
    const std::string name = entry.path().filename().string();
    if (is_valid_campaign_name(name) && fs::exists(entry.path() / "campaign.yaml")) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool Spool::daemon_is_running() const {
  int fd = ::open(pid_file().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0;
  ::close(fd);
  return held;
}

StoredState read_stored_state(const Spool& spool, const std::string& name) {
  const CampaignDir dir = spool.campaign(name);
  StoredState s;
  s.generations_planned = load_campaign(dir.campaign_config()).search.generations;
  s.generations_done = dir.completed_generations();
  s.cancelled = fs::exists(spool.cancelled_marker(name));
  if (fs::exists(spool.failed_marker(name))) {
    s.failed = true;
    s.failure_reason = jobs::read_text_file(spool.failed_marker(name));
    while (!s.failure_reason.empty() && s.failure_reason.back() == '\n') s.failure_reason.pop_back();
  }
  return s;
}

long campaign_driver_pid(const CampaignDir& dir) {
  int fd = ::open(dir.lock_file().c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  long pid = 0;
  if (::flock(fd, LOCK_SH | LOCK_NB) != 0) {
    char buf[32] = {};
    const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
    pid = n > 0 ? std::strtol(buf, nullptr, 10) : 0;
    if (pid <= 0) pid = -1;
  }
  ::close(fd);
  return pid;
}

SpoolLock::SpoolLock(const Spool& spool) {
  const fs::path file = spool.pid_file();
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw SpoolError(file.string() + ": cannot open the daemon's pid file: " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    std::string holder(32, '\0');
    const ssize_t n = ::pread(fd_, holder.data(), holder.size() - 1, 0);
    holder.resize(n > 0 ? static_cast<size_t>(n) : 0);
    while (!holder.empty() && (holder.back() == '\n' || holder.back() == '\0')) holder.pop_back();
    ::close(fd_);
    fd_ = -1;
    throw SpoolError(spool.root().string() + ": another kforged (pid " + (holder.empty() ? "unknown" : holder) +
                     ") is already watching this spool; one daemon per spool");
  }
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) != 0 || ::pwrite(fd_, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size())) {
    const std::string reason = std::strerror(errno);
    ::close(fd_);
    fd_ = -1;
    throw SpoolError(file.string() + ": cannot write the daemon's pid: " + reason);
  }
}

SpoolLock::~SpoolLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock; the stale pid in the file is harmless
}

}  // namespace kforge::scheduler::daemon
