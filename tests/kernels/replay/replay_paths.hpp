#pragma once
// Where the measured spaces live: share/data/kernel-spaces, inside the repository, so every clone has them.
// A missing file is a failure (a broken clone), never a skip.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace kforge::kernels::testing {

inline std::filesystem::path kernel_spaces_dir() {
  return std::filesystem::path(KFORGE_SOURCE_DIR) / "share" / "data" / "kernel-spaces";
}

inline std::filesystem::path cache_file(const std::string& name) {
  return kernel_spaces_dir() / "cache" / (name + ".json.gz");
}

}  // namespace kforge::kernels::testing

#define KFORGE_REQUIRE_FILE(path) \
  ASSERT_TRUE(std::filesystem::is_regular_file(path)) << "measured space missing from the clone: " << (path).string()
