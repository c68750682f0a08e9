#include "timing_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "kforge/jobs/record.hpp"

namespace kforge::mpi_eval {
namespace {

std::string failure(const char* call, const std::filesystem::path& path) {
  return std::string(call) + " " + path.string() + ": " + std::strerror(errno);
}

// Opens the lock file read-only (flock needs no write access), creating it readable by every user so that
// ranks of other users on the node share it. An existing file is opened without O_CREAT: with
// fs.protected_regular, O_CREAT on another user's file in a sticky folder such as /tmp fails even if it exists.
int open_lock_file(const std::filesystem::path& path, std::string& problem) {
  for (int attempt = 0; attempt < 8; ++attempt) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd >= 0 || errno != ENOENT) {
      if (fd < 0) problem = failure("open", path);
      return fd;
    }
    fd = ::open(path.c_str(), O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd >= 0) {
      ::fchmod(fd, 0644);  // whatever the umask: other users only need to open it for reading
      return fd;
    }
    if (errno != EEXIST) break;  // EEXIST: another process created it just now; open that one
  }
  problem = failure("create", path);
  return -1;
}

}  // namespace

std::filesystem::path timing_lock_path() {
  const char* chosen = std::getenv("KFORGE_TIMING_LOCK");
  if (chosen && *chosen) return chosen;
  std::string host = jobs::host_name();
  for (char& ch : host) {
    if (ch == '/') ch = '_';
  }
  return std::filesystem::temp_directory_path() / ("kforge-timing-" + host + ".lock");
}

std::filesystem::path device_timing_lock_path() {
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  std::string devices = visible != nullptr && *visible != '\0' ? visible : "all";
  for (char& ch : devices)
    if (std::isalnum(static_cast<unsigned char>(ch)) == 0 && ch != '-') ch = '_';  // "0,1", UUIDs: one file name
  const std::filesystem::path node = timing_lock_path();
  return node.parent_path() / (node.stem().string() + "-gpu-" + devices + node.extension().string());
}

std::optional<std::filesystem::path> timing_lock_for(const kernels::Backend& backend) {
  if (backend.times_on_shared_cores()) return timing_lock_path();
  if (backend.creates_device_context()) return device_timing_lock_path();
  return std::nullopt;
}

TimingLock::TimingLock(const std::filesystem::path& path) {
  const int fd = open_lock_file(path, problem_);
  if (fd < 0) return;
  while (::flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    problem_ = failure("flock", path);
    ::close(fd);
    return;
  }
  fd_ = fd;
}

TimingLock::~TimingLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the only descriptor of this open file drops the lock
}

}  // namespace kforge::mpi_eval
