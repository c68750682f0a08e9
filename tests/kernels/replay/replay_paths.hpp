#pragma once
// Where the shared measured spaces live: shared/ sits beside the clone (CI and the dev machines alike).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace kforge::kernels::testing {

inline std::filesystem::path kernel_spaces_dir() {
  return std::filesystem::path(KFORGE_SOURCE_DIR) / ".." / "shared" / "data" / "kernel-spaces";
}

inline std::filesystem::path cache_file(const std::string& name) {
  return kernel_spaces_dir() / "cache" / (name + ".json.gz");
}

}  // namespace kforge::kernels::testing

#define KFORGE_SKIP_WITHOUT(path)                                                              \
  if (!std::filesystem::exists(path)) GTEST_SKIP() << "measured space not found: " << (path).string() \
                                                   << " (shared/data/kernel-spaces beside the clone)"
