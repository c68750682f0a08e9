#include "kforge/test_support/scratch_dir.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace kforge::test_support {

ScratchDir::ScratchDir(const std::string& tag) {
  std::string pattern = (std::filesystem::temp_directory_path() / ("kforge-" + tag + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("mkdtemp(" + pattern + "): " + std::strerror(errno));
  }
  path_ = pattern;
  // mkdtemp makes it 0700; the folders these tests made before were 0755 (create_directories under umask 022),
  // which a sandboxed child that dropped to another user can still enter.
  std::filesystem::permissions(path_, std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                          std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                          std::filesystem::perms::others_exec);
}

ScratchDir::~ScratchDir() {
  if (keep_) return;
  std::error_code ignored;  // a destructor must not throw; a leftover folder is harmless
  std::filesystem::remove_all(path_, ignored);
}

std::string ScratchDir::read(const std::string& name) const {
  std::ifstream in(path_ / name);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string current_test_name() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::string name = info != nullptr ? info->name() : "no-test";
  std::replace(name.begin(), name.end(), '/', '_');
  return name;
}

}  // namespace kforge::test_support
