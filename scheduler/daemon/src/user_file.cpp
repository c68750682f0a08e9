#include "kforge/scheduler/daemon/user_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISLNK(mode)) return "a symbolic link";
  return "not a regular file";
}

[[noreturn]] void fail(const fs::path& file, const std::string& why) {
  throw UserFileError(file.string() + ": " + why);
}

[[noreturn]] void fail_errno(const fs::path& file, const char* what, int err) {
  // O_NOFOLLOW on a symlink fails with ELOOP ("too many levels of symbolic links"): say what it means here.
  if (err == ELOOP) fail(file, "is a symbolic link (never followed)");
  fail(file, std::string(what) + ": " + std::strerror(err));
}

// An open descriptor of a regular file at `file`, or -1 with errno ENOENT when nothing is there.
class RegularFile {
 public:
  RegularFile(const fs::path& file, bool missing_ok) {
    fd_ = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd_ < 0) {
      if (missing_ok && errno == ENOENT) return;
      fail_errno(file, "cannot open", errno);
    }
    if (::fstat(fd_, &st_) != 0) fail_errno(file, "cannot fstat", errno);
    if (!S_ISREG(st_.st_mode)) fail(file, std::string("is ") + kind_of(st_.st_mode) + ", not a regular file");
  }
  ~RegularFile() {
    if (fd_ >= 0) ::close(fd_);
  }
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  bool open() const { return fd_ >= 0; }
  int fd() const { return fd_; }
  off_t size() const { return st_.st_size; }

 private:
  int fd_ = -1;
  struct stat st_ {};
};

// Reads up to `n` bytes at `offset` (a file that shrank meanwhile gives fewer).
std::string read_at(const RegularFile& f, const fs::path& file, off_t offset, std::size_t n) {
  std::string text(n, '\0');
  std::size_t got = 0;
  while (got < n) {
    const ssize_t r = ::pread(f.fd(), text.data() + got, n - got, offset + static_cast<off_t>(got));
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) fail_errno(file, "cannot read", errno);
    if (r == 0) break;
    got += static_cast<std::size_t>(r);
  }
  text.resize(got);
  return text;
}

std::string read_whole(const RegularFile& f, const fs::path& file, std::size_t limit) {
  if (f.size() > static_cast<off_t>(limit)) {
    fail(file, std::to_string(f.size()) + " bytes, larger than the limit of " + std::to_string(limit) + " bytes");
  }
  // One byte more than the size: a file that grew since fstat is refused rather than read without end.
  std::string text = read_at(f, file, 0, static_cast<std::size_t>(f.size()) + 1);
  if (text.size() > limit) fail(file, "grew beyond the limit of " + std::to_string(limit) + " bytes while read");
  return text;
}

}  // namespace

std::string read_user_file(const fs::path& file, std::size_t limit) {
  const RegularFile f(file, false);
  return read_whole(f, file, limit);
}

std::optional<std::string> read_user_file_if_present(const fs::path& file, std::size_t limit) {
  const RegularFile f(file, true);
  if (!f.open()) return std::nullopt;
  return read_whole(f, file, limit);
}

std::string last_line_of_user_file(const fs::path& file) {
  try {
    const RegularFile f(file, true);
    if (!f.open()) return "";
    constexpr off_t kTail = 4096;  // the end is all we need
    const off_t start = f.size() > kTail ? f.size() - kTail : 0;
    std::string tail = read_at(f, file, start, static_cast<std::size_t>(f.size() - start));
    while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r' || tail.back() == ' ')) tail.pop_back();
    const std::size_t nl = tail.rfind('\n');
    return nl == std::string::npos ? tail : tail.substr(nl + 1);
  } catch (const UserFileError&) {
    return "";
  }
}

bool present(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0) return true;
  if (errno == ENOENT || errno == ENOTDIR) return false;
  fail_errno(path, "cannot examine", errno);
}

void require_real_directory(const fs::path& dir) {
  struct stat st {};
  if (::lstat(dir.c_str(), &st) != 0) fail_errno(dir, "cannot examine the campaign folder", errno);
  if (S_ISLNK(st.st_mode)) fail(dir, "is a symbolic link, not a campaign folder (never followed)");
  if (!S_ISDIR(st.st_mode)) fail(dir, std::string("is ") + kind_of(st.st_mode) + ", not a campaign folder");
}

}  // namespace kforge::scheduler::daemon
