#pragma once
// Everything below SPOOL/campaigns/USER belongs to that user and is hostile input to whoever reads it: a FIFO
// where a file should be blocks open() for ever, a symlink to /dev/zero never ends, a hard link to a huge file
// costs time. What kforged and `kforge status` read there goes through these functions, the way sshd reads a
// user's authorized_keys: opened with O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC, fstat'd, read only when it is a regular file
// within the size limit. They run inside a helper that is the user (as_user.hpp), so they also never see more
// than the user may.
#include <cstddef>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>

namespace kforge::scheduler::daemon {

inline constexpr std::size_t kMaxUserFileBytes = 1 << 20;  // kforge's own limit for a config file

// A file in a user's part of the spool that is not usable; what() is "PATH: why".
class UserFileError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The text of FILE: a regular file of at most `limit` bytes. Throws UserFileError naming what is wrong ("is a
// symbolic link (never followed)", "is a FIFO, not a regular file", "15728640 bytes, larger than the limit ...").
std::string read_user_file(const std::filesystem::path& file, std::size_t limit = kMaxUserFileBytes);
// The same, or std::nullopt when nothing is at that path.
std::optional<std::string> read_user_file_if_present(const std::filesystem::path& file,
                                                     std::size_t limit = kMaxUserFileBytes);
// The last non-empty line of a log, from at most its last 4 KiB (opened the same way, so its size does not
// matter); "" when the file is missing or not a regular file.
std::string last_line_of_user_file(const std::filesystem::path& file);
// True when anything is at `path` (lstat: a symlink counts, and is never followed). Throws UserFileError when the
// path cannot be examined (a folder above it not searchable, ...).
bool present(const std::filesystem::path& path);
// Throws UserFileError unless `dir` is a real directory: a campaign folder that is a symlink (to another user's
// folder, or root's) is never entered.
void require_real_directory(const std::filesystem::path& dir);

}  // namespace kforge::scheduler::daemon
