#pragma once
// Whole text files, written crash-safely: a reader sees the old content or the whole new one, never a part.
#include <filesystem>
#include <string>
#include <string_view>

namespace kforge::jobs {

// Temp name in the same folder, fsync, rename, fsync the folder. Throws std::runtime_error naming the file.
void write_text_file_atomically(const std::filesystem::path& path, std::string_view text);

// The file's bytes. Throws std::runtime_error "PATH: cannot read: <reason>".
std::string read_text_file(const std::filesystem::path& path);

}  // namespace kforge::jobs
