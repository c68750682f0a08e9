#pragma once
// What every fuzz target shares: the input as text, a scratch file for readers that take a path, and the way a
// broken contract is reported (abort, so libFuzzer keeps the input as a crash reproducer).
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace kforge::fuzz {

inline std::string text_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

// A reader broke its documented contract (an exception of another type, a message without the file, a value
// that does not survive its own writer). Not an exception: the harness must stop on this input.
[[noreturn]] inline void contract_broken(const std::string& what) {
  std::fprintf(stderr, "kforge fuzz: contract broken: %s\n", what.c_str());
  std::abort();
}

// One file per fuzzing process, rewritten with each input: the manifest and shard readers take a path.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& name)
      : dir_(std::filesystem::temp_directory_path() / ("kforge-fuzz-" + std::to_string(::getpid()))),
        path_(dir_ / name) {
    std::filesystem::create_directories(dir_);
  }
  ~ScratchFile() {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;

  const std::filesystem::path& write(const std::uint8_t* data, std::size_t size) {
    std::ofstream out(path_, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    out.close();
    if (!out) contract_broken("cannot write the scratch file " + path_.string());
    return path_;
  }
  const std::filesystem::path& dir() const { return dir_; }

 private:
  std::filesystem::path dir_;
  std::filesystem::path path_;
};

}  // namespace kforge::fuzz
