#include "kforge/scheduler/daemon/spool.hpp"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "kforge/scheduler/daemon/user_file.hpp"

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

fs::path default_spool_path() {
  if (const char* env = std::getenv("KFORGE_SPOOL"); env && *env) return env;
  return "/var/lib/kforge";
}

bool is_valid_campaign_name(const std::string& name) {
  if (name.empty() || name.front() == '.' || name.size() > 200) return false;
  return std::all_of(name.begin(), name.end(),
                     [](unsigned char c) { return std::isalnum(c) || c == '.' || c == '_' || c == '-'; });
}

namespace {

// mkdir (an existing folder is fine), then owner and mode exactly as documented. The folder must be a real
// directory, not a symlink someone planted: every later path under it trusts it.
void make_owned_dir(const fs::path& p, uid_t uid, gid_t gid, mode_t mode) {
  if (::mkdir(p.c_str(), 0700) != 0 && errno != EEXIST) {
    throw SpoolError(p.string() + ": cannot create the spool folder: " + std::strerror(errno));
  }
  struct stat st {};
  if (::lstat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    throw SpoolError(p.string() + ": is not a directory (a symlink or a file is not accepted here)");
  }
  if ((st.st_uid != uid || st.st_gid != gid) && ::lchown(p.c_str(), uid, gid) != 0) {
    throw SpoolError(p.string() + ": cannot give the folder to uid " + std::to_string(uid) + ": " +
                     std::strerror(errno));
  }
  // The kernel drops a setgid bit it may not set (root outside the folder's group without CAP_FSETID) without an
  // error: the mode is read back.
  if ((st.st_mode & 07777) != mode) {
    errno = 0;
    if (::chmod(p.c_str(), mode) == 0 && ::lstat(p.c_str(), &st) == 0 && (st.st_mode & 07777) == mode) return;
    char octal[8];
    std::snprintf(octal, sizeof octal, "%04o", static_cast<unsigned>(mode));
    throw SpoolError(p.string() + ": cannot set mode " + octal + ": " +
                     (errno != 0 ? std::strerror(errno) : "the kernel kept another mode (is CAP_FSETID missing?)"));
  }
}

std::string own_user_name() {
  if (const passwd* pw = ::getpwuid(::geteuid())) return pw->pw_name;
  return std::to_string(::geteuid());
}

}  // namespace

void Spool::create_layout(const SpoolPolicy& policy) const {
  std::error_code ec;
  fs::create_directories(root_.parent_path(), ec);  // the spool itself gets its mode below
  if (policy.multi_user) {
    make_owned_dir(root_, 0, 0, 0711);
    make_owned_dir(requests_dir(), 0, 0, 01733);
    make_owned_dir(campaigns_dir(), 0, policy.admin_group.value_or(0), policy.admin_group ? 0751 : 0711);
    make_owned_dir(accepted_dir(), 0, 0, 0700);
    return;
  }
  for (const fs::path& p : {root_, campaigns_dir(), requests_dir(), accepted_dir()}) {
    if (::mkdir(p.c_str(), 0700) != 0 && errno != EEXIST) {
      throw SpoolError(p.string() + ": cannot create the spool folder: " + std::strerror(errno));
    }
    struct stat st {};
    if (::lstat(p.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
      throw SpoolError(p.string() + ": is not a directory (a symlink or a file is not accepted here)");
    }
    if (st.st_uid != ::geteuid()) {
      throw SpoolError(p.string() + ": belongs to uid " + std::to_string(st.st_uid) + ", not to this kforged's uid " +
                       std::to_string(::geteuid()) + "; a kforged run by a user serves only a spool of its own " +
                       "(a spool shared by many users needs kforged as root: docs/daemon.md)");
    }
    if ((st.st_mode & 07777) != 0700 && ::chmod(p.c_str(), 0700) != 0) {
      throw SpoolError(p.string() + ": cannot set mode 0700: " + std::strerror(errno));
    }
    if (::access(p.c_str(), W_OK | X_OK) != 0) {
      throw SpoolError(p.string() + ": the spool folder is not writable by this user: " + std::strerror(errno));
    }
  }
}

void Spool::create_user_dir(const std::string& owner, uid_t uid, gid_t gid, const SpoolPolicy& policy) const {
  const fs::path dir = user_dir(owner);
  if (!policy.multi_user) {
    make_owned_dir(dir, ::geteuid(), ::getegid(), 0700);
    return;
  }
  struct stat st {};
  if (::lstat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && st.st_uid != uid) {
    throw SpoolError(dir.string() + ": belongs to uid " + std::to_string(st.st_uid) + ", not to " + owner + " (uid " +
                     std::to_string(uid) + "): was the account renamed or recreated?");
  }
  // Setgid with an admin group: what the user's processes create stays readable by the admins.
  make_owned_dir(dir, uid, policy.admin_group.value_or(gid), policy.admin_group ? 02750 : 0700);
}

std::vector<std::string> Spool::campaign_names(const std::string& owner) const {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(user_dir(owner), ec)) {
    const std::string name = entry.path().filename().string();
    std::error_code e2;
    if (is_valid_campaign_name(name) && fs::exists(entry.path() / "campaign.yaml", e2)) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> Spool::owners() const {
  std::vector<std::string> owners;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(campaigns_dir(), ec)) {
    const std::string owner = entry.path().filename().string();
    if (is_valid_campaign_name(owner)) owners.push_back(owner);
  }
  if (ec) owners = {own_user_name()};  // campaigns/ is not listable by users (0711): their own folder only
  std::sort(owners.begin(), owners.end());
  return owners;
}

std::vector<CampaignRef> Spool::campaigns() const {
  std::vector<CampaignRef> out;
  for (const std::string& owner : owners()) {
    for (const std::string& name : campaign_names(owner)) out.push_back(CampaignRef{owner, name});
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool Spool::daemon_is_running() const {
  if (const int fd = ::open(lock_file().c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK); fd >= 0) {
    const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0;
    ::close(fd);
    return held;
  }
  // Not the daemon's user: the lock file is private. The pid file names the daemon; it counts while a process
  // of that pid runs a program named kforged as the spool's owner (a pid reused since by another program does not).
  struct stat spool_st {
  }, proc_st{};
  long pid = 0;
  try {
    pid = std::stol(read_user_file(pid_file(), 64));
  } catch (const std::exception&) {
    return false;
  }
  const fs::path proc = "/proc/" + std::to_string(pid);
  char comm[32] = {};
  const int fd = pid > 0 ? ::open((proc / "comm").c_str(), O_RDONLY | O_CLOEXEC) : -1;
  if (fd < 0) return false;
  const ssize_t n = ::read(fd, comm, sizeof comm - 1);
  ::close(fd);
  return n > 0 && std::string(comm) == "kforged\n" && ::stat(root_.c_str(), &spool_st) == 0 &&
         ::stat(proc.c_str(), &proc_st) == 0 && proc_st.st_uid == spool_st.st_uid;
}

SpoolLock::SpoolLock(const Spool& spool) : pid_file_(spool.pid_file()) {
  const fs::path file = spool.lock_file();
  fd_ = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0600);
  if (fd_ < 0) throw SpoolError(file.string() + ": cannot open the daemon's lock file: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || ::fchmod(fd_, 0600) != 0) {
    ::close(fd_);
    fd_ = -1;
    throw SpoolError(file.string() + ": the daemon's lock file is not a regular file this daemon owns");
  }
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
  // The pid file for people and clients: SPOOL is the daemon's, so nobody else can have put anything there.
  const int pid_fd = ::open(pid_file_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (pid_fd < 0 || ::fchmod(pid_fd, 0644) != 0 ||
      ::write(pid_fd, pid.data(), pid.size()) != static_cast<ssize_t>(pid.size())) {
    const std::string reason = std::strerror(errno);
    if (pid_fd >= 0) ::close(pid_fd);
    ::close(fd_);
    fd_ = -1;
    throw SpoolError(pid_file_.string() + ": cannot write the daemon's pid file: " + reason);
  }
  ::close(pid_fd);
}

SpoolLock::~SpoolLock() {
  if (fd_ < 0) return;
  ::unlink(pid_file_.c_str());  // while the lock is still held: no later daemon's pid file is removed
  ::close(fd_);                 // closing releases the flock
}

}  // namespace kforge::scheduler::daemon
