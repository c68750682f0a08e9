// POSIX side of the temp + fsync + rename protocol (detail/durable_file.hpp).
#include "detail/durable_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

#include "kforge/jobs/unique_fd.hpp"

namespace kforge::jobs::detail {
namespace {

[[noreturn]] void throw_errno(const std::string& what, const std::filesystem::path& path, int err) {
  throw std::runtime_error(path.string() + ": " + what + " failed: " + std::strerror(err));
}

jobs::UniqueFd open_or_throw(const std::filesystem::path& path, int flags, mode_t mode = 0) {
  jobs::UniqueFd fd(::open(path.c_str(), flags, mode));
  if (!fd.open()) throw_errno("open", path, errno);
  return fd;
}

std::filesystem::path parent_or_dot(const std::filesystem::path& path) {
  auto parent = path.parent_path();
  return parent.empty() ? std::filesystem::path(".") : parent;
}

}  // namespace

std::filesystem::path temp_path_for(const std::filesystem::path& target) {
  return target.string() + ".tmp." + std::to_string(::getpid());
}

bool is_temp_path(const std::filesystem::path& path) {
  return path.filename().string().find(".tmp.") != std::string::npos;
}

void fsync_file(const std::filesystem::path& path) {
  const jobs::UniqueFd fd = open_or_throw(path, O_RDONLY | O_CLOEXEC);
  if (::fsync(fd.get()) != 0) throw_errno("fsync", path, errno);
}

void fsync_parent_dir(const std::filesystem::path& path) {
  auto dir = parent_or_dot(path);
  const jobs::UniqueFd fd = open_or_throw(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (::fsync(fd.get()) != 0) throw_errno("fsync of directory", dir, errno);
}

void publish_replacing(const std::filesystem::path& tmp, const std::filesystem::path& target) {
  fsync_file(tmp);
  if (::rename(tmp.c_str(), target.c_str()) != 0) throw_errno("rename from " + tmp.string(), target, errno);
  fsync_parent_dir(target);
}

void publish_new(const std::filesystem::path& tmp, const std::filesystem::path& target) {
  fsync_file(tmp);
  if (::link(tmp.c_str(), target.c_str()) != 0) {
    int err = errno;
    if (err == EEXIST) throw std::runtime_error(target.string() + ": already exists and is immutable; not overwritten");
    throw_errno("link from " + tmp.string(), target, err);
  }
  ::unlink(tmp.c_str());
  fsync_parent_dir(target);
}

void write_text_atomically(const std::filesystem::path& target, std::string_view text) {
  auto tmp = temp_path_for(target);
  TempFileGuard guard(tmp);
  {
    const jobs::UniqueFd fd = open_or_throw(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    std::size_t written = 0;
    while (written < text.size()) {
      ssize_t n = ::write(fd.get(), text.data() + written, text.size() - written);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) throw_errno("write", tmp, errno);
      written += static_cast<std::size_t>(n);
    }
  }
  publish_replacing(tmp, target);
  guard.release();
}

TempFileGuard::~TempFileGuard() {
  if (!path_.empty()) ::unlink(path_.c_str());
}

}  // namespace kforge::jobs::detail
