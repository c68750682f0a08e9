// Landlock for a candidate process: the scratch folder read-write, system folders read-only, nothing else
// (no campaign directory, no manifest, no home). Also TCP bind/connect (ABI 4) and signals and abstract
// sockets outside the sandbox (ABI 6) where the kernel knows them. Structures declared here because Debian 12's
// kernel headers predate ABI 3.
#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "kforge/jobs/unique_fd.hpp"
#include "sandbox/confine.hpp"

namespace kforge::kernels::host {
namespace {

namespace fs = std::filesystem;

struct RulesetAttr {
  std::uint64_t handled_access_fs;
  std::uint64_t handled_access_net;  // ABI 4
  std::uint64_t scoped;              // ABI 6
};

struct __attribute__((packed)) PathBeneath {
  std::uint64_t allowed_access;
  std::int32_t parent_fd;
};

constexpr std::uint32_t kCreateRulesetVersion = 1u << 0;
constexpr int kRulePathBeneath = 1;
constexpr std::uint64_t kExecute = 1u << 0, kWriteFile = 1u << 1, kReadFile = 1u << 2, kReadDir = 1u << 3;
constexpr std::uint64_t kTruncate = 1u << 14, kIoctlDev = 1u << 15;
constexpr std::uint64_t kNetBindConnectTcp = (1u << 0) | (1u << 1);
constexpr std::uint64_t kScopeAbstractSocketAndSignal = (1u << 0) | (1u << 1);

std::uint64_t handled_fs(int abi) {
  if (abi >= 5) return (1u << 16) - 1;  // + IOCTL_DEV
  if (abi >= 3) return (1u << 15) - 1;  // + TRUNCATE
  if (abi >= 2) return (1u << 14) - 1;  // + REFER
  return (1u << 13) - 1;
}

std::size_t attr_size(int abi) { return abi >= 6 ? 24 : abi >= 4 ? 16 : 8; }

std::string failure(const std::string& what) { return what + ": " + std::strerror(errno); }

using Fd = jobs::UniqueFd;

// Adds one rule; a path that does not exist is skipped (not every system has /lib64).
std::string allow(int ruleset, const fs::path& path, std::uint64_t rights, std::uint64_t handled) {
  const Fd fd(::open(path.c_str(), O_PATH | O_CLOEXEC));
  if (fd.get() < 0)
    return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? "" : failure("open " + path.string());
  struct stat st {};
  if (::fstat(fd.get(), &st) != 0) return failure("stat " + path.string());
  std::uint64_t allowed = rights & handled;
  if (!S_ISDIR(st.st_mode)) allowed &= kExecute | kWriteFile | kReadFile | kTruncate | kIoctlDev;
  const PathBeneath rule{allowed, fd.get()};
  if (::syscall(SYS_landlock_add_rule, ruleset, kRulePathBeneath, &rule, 0) != 0) {
    return failure("landlock_add_rule " + path.string());
  }
  return {};
}

}  // namespace

std::vector<fs::path> candidate_read_only_paths() {
  std::vector<fs::path> paths = {
      "/usr",       "/lib",      "/lib64",    "/lib32",    "/etc",         "/opt",       "/sys/devices/system/cpu",
      "/proc/self", "/dev/null", "/dev/zero", "/dev/full", "/dev/urandom", "/dev/random"};
  if (const char* ld = std::getenv("LD_LIBRARY_PATH")) {
    std::stringstream parts(ld);
    for (std::string dir; std::getline(parts, dir, ':');)
      if (!dir.empty()) paths.emplace_back(dir);
  }
  return paths;
}

std::string restrict_files(const fs::path& scratch, const std::vector<fs::path>& read_only, int& abi) {
  const long version = ::syscall(SYS_landlock_create_ruleset, nullptr, 0, kCreateRulesetVersion);
  abi = version > 0 ? static_cast<int>(version) : 0;
  if (abi == 0) return {};  // kernel without Landlock (before 5.13, or not in its LSM list): reported, not fatal
  const std::uint64_t fs_rights = handled_fs(abi);
  RulesetAttr attr{fs_rights, abi >= 4 ? kNetBindConnectTcp : 0, abi >= 6 ? kScopeAbstractSocketAndSignal : 0};
  const Fd ruleset(static_cast<int>(::syscall(SYS_landlock_create_ruleset, &attr, attr_size(abi), 0)));
  if (ruleset.get() < 0) return failure("landlock_create_ruleset");
  constexpr std::uint64_t kReadOnly = kExecute | kReadFile | kReadDir;
  for (const auto& path : read_only) {
    const bool device = path.string().starts_with("/dev/");
    if (auto f = allow(ruleset.get(), path, device ? kReadFile | kWriteFile : kReadOnly, fs_rights); !f.empty())
      return f;
  }
  if (auto f = allow(ruleset.get(), scratch, fs_rights, fs_rights); !f.empty()) return f;
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return failure("prctl(PR_SET_NO_NEW_PRIVS)");
  if (::syscall(SYS_landlock_restrict_self, ruleset.get(), 0) != 0) return failure("landlock_restrict_self");
  return {};
}

}  // namespace kforge::kernels::host
