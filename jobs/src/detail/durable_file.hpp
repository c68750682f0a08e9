#pragma once
// Crash-safe publication of a file: write a temp file in the same folder, fsync it, rename it into place,
// fsync the folder. A reader then sees the old state or the whole new file, never a part of it.
#include <filesystem>
#include <string_view>

namespace kforge::jobs::detail {

// "<target>.tmp.<pid>": same folder (rename stays atomic), never matches a reader's "*.h5"/"*.yaml" pattern.
std::filesystem::path temp_path_for(const std::filesystem::path& target);

// True for names made by temp_path_for: leftovers of an interrupted write, never valid data.
bool is_temp_path(const std::filesystem::path& path);

void fsync_file(const std::filesystem::path& path);        // throws std::runtime_error naming the file
void fsync_parent_dir(const std::filesystem::path& path);  // makes a rename / link in that folder durable

// fsync tmp, rename it over target, fsync the folder.
void publish_replacing(const std::filesystem::path& tmp, const std::filesystem::path& target);
// fsync tmp, hard-link it to target (fails atomically if target exists), remove tmp, fsync the folder.
void publish_new(const std::filesystem::path& tmp, const std::filesystem::path& target);

void write_text_atomically(const std::filesystem::path& target, std::string_view text);

// Removes the temp file when a write fails half-way; release() once it was published.
class TempFileGuard {
 public:
  explicit TempFileGuard(std::filesystem::path path) : path_(std::move(path)) {}
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
  void release() { path_.clear(); }

 private:
  std::filesystem::path path_;
};

}  // namespace kforge::jobs::detail
