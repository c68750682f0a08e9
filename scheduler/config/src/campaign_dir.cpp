#include "kforge/scheduler/config/campaign_dir.hpp"

#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/config/config.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

namespace kforge::scheduler {
namespace fs = std::filesystem;

namespace {
std::string four_digits(int n) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%04d", n);
  return buf;
}
std::string errno_text() { return std::strerror(errno); }
}  // namespace

fs::path CampaignDir::generation_file(int g) const { return root_ / ("gen-" + four_digits(g) + ".h5"); }
fs::path CampaignDir::generation_dir(int g) const {
  return g == kConfirmStage ? root_ / "confirm" : root_ / ("g" + four_digits(g));
}
fs::path CampaignDir::manifest(int g, int task) const { return tasks_dir(g) / (four_digits(task) + ".yaml"); }
fs::path CampaignDir::shard(int g, int task) const {
  return generation_dir(g) / "shards" / (four_digits(task) + ".h5");
}
fs::path CampaignDir::log(int g, int task) const { return generation_dir(g) / "logs" / (four_digits(task) + ".log"); }

int CampaignDir::completed_generations() const {
  int n = 0;
  while (fs::exists(generation_file(n))) ++n;
  // A later generation file after a gap means the directory was edited by hand: refuse to guess.
  for (int g = n + 1; g < n + 64; ++g) {
    if (fs::exists(generation_file(g))) {
      throw std::runtime_error(generation_file(n).string() + " is missing but " + generation_file(g).string() +
                               " exists: the campaign directory is inconsistent");
    }
  }
  return n;
}

CampaignConfig load_stored_campaign(const CampaignDir& dir) {
  const std::string text = jobs::read_text_file(dir.campaign_config());
  std::error_code ec;
  if (!fs::is_regular_file(dir.campaign_origin(), ec)) return parse_campaign(text, dir.campaign_config());
  fs::path origin = jobs::read_text_file(dir.campaign_origin());
  // Parsed under the original file's name, so positions in messages still point into the stored copy's text.
  return parse_campaign(text, origin);
}

namespace {
// The lock file, opened so that what someone put in its place cannot hang or fool the caller (kforged and root's
// `kforge status` read other users' campaign folders): no symlink followed, a FIFO does not block, only a regular
// file is used. -1 when there is no such file; throws naming it when something else is there.
int open_lock_file(const fs::path& file, int flags) {
  const int fd = ::open(file.c_str(), flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0644);
  if (fd < 0 && errno == ENOENT && !(flags & O_CREAT)) return -1;
  if (fd < 0) throw std::runtime_error(file.string() + ": cannot open the campaign lock file: " + errno_text());
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::runtime_error(file.string() + ": the campaign lock file is not a regular file");
  }
  return fd;
}
}  // namespace

long campaign_driver_pid(const CampaignDir& dir) {
  const int fd = open_lock_file(dir.lock_file(), O_RDONLY);
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

CampaignLock::CampaignLock(const fs::path& lock_file) {
  fd_ = open_lock_file(lock_file, O_RDWR | O_CREAT);
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    std::string holder(64, '\0');
    ssize_t n = ::pread(fd_, holder.data(), holder.size() - 1, 0);
    holder.resize(n > 0 ? static_cast<size_t>(n) : 0);
    ::close(fd_);
    throw std::runtime_error(lock_file.string() + ": the campaign is being driven by another process (pid " +
                             (holder.empty() ? std::string("unknown") : holder) + ")");
  }
  std::string pid = std::to_string(::getpid());
  if (::ftruncate(fd_, 0) == 0) {
    [[maybe_unused]] ssize_t w = ::pwrite(fd_, pid.data(), pid.size(), 0);
  }
}

CampaignLock::~CampaignLock() {
  if (fd_ >= 0) ::close(fd_);  // closing releases the flock
}

}  // namespace kforge::scheduler
