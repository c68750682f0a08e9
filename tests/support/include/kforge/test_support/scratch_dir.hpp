#pragma once
// The scratch folder every test binary uses: one fresh folder per object under the system temp dir, removed with
// everything in it when the object goes (tests/support, docs/testing.md).
#include <filesystem>
#include <string>

namespace kforge::test_support {

class ScratchDir {
 public:
  // TAG names the folder (kforge-TAG-XXXXXX, made by mkdtemp: unique across processes and objects), so a kept
  // folder or a leftover says which test made it.
  explicit ScratchDir(const std::string& tag = "test");
  ~ScratchDir();
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  [[nodiscard]] const std::filesystem::path& path() const { return path_; }
  [[nodiscard]] std::filesystem::path sub(const std::string& name) const { return path_ / name; }
  [[nodiscard]] std::string read(const std::string& name) const;  // a whole file of the folder, "" if missing
  void keep() { keep_ = true; }  // leave the folder in place, e.g. to read it after a failure

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

// The running GoogleTest test's name as a file name ("Suite/0" of a parameterised test becomes "Suite_0").
std::string current_test_name();

}  // namespace kforge::test_support
