#pragma once
// Helpers for the daemon tests: run the real binaries as processes (as root or as a test user created for the
// test), wait for files, temp spools.
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <csignal>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "kforge/test_support/scratch_dir.hpp"

namespace kforge::test {

namespace fs = std::filesystem;

inline fs::path bin(const std::string& name) { return fs::path(KFORGE_BINARY_DIR) / "bin" / name; }

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh folder under /tmp, removed with everything in it at scope exit (tests/support).
using TempDir = kforge::test_support::ScratchDir;

using Env = std::map<std::string, std::string>;

// Whom a started process runs as: an unprivileged user, with every group it is in and its own HOME.
struct RunAs {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;
  fs::path home;
};

// Starts argv with stdout to `out` and stderr to `err` (opened by the caller's user); returns the pid.
inline pid_t start_process(const std::vector<std::string>& argv, const fs::path& out, const fs::path& err,
                           const Env& env = {}, const std::optional<RunAs>& as = std::nullopt) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, STDOUT_FILENO);
    ::dup2(e, STDERR_FILENO);
    if (as) {
      if (::initgroups(as->name.c_str(), as->gid) != 0 || ::setgid(as->gid) != 0 || ::setuid(as->uid) != 0) {
        ::_exit(126);
      }
      ::setenv("HOME", as->home.c_str(), 1);
      ::setenv("USER", as->name.c_str(), 1);
      if (::chdir(as->home.c_str()) != 0) ::_exit(126);
    }
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
}

inline void run_or_throw(const std::string& command) {
  if (std::system(command.c_str()) != 0) throw std::runtime_error("the test could not run: " + command);
}

// A group created for the test (groupadd), removed at scope exit.
class TestGroup {
 public:
  explicit TestGroup(const std::string& tag) : name_("kfg" + tag + std::to_string(::getpid())) {
    run_or_throw("groupadd " + name_);
  }
  ~TestGroup() { [[maybe_unused]] int rc = std::system(("groupdel " + name_ + " 2>/dev/null").c_str()); }
  const std::string& name() const { return name_; }

 private:
  std::string name_;
};

// An unprivileged user created for the test (useradd, no home folder, no login shell), removed at scope exit.
// The test must run as root: creating users is what proves the daemon separates them.
class TestUser {
 public:
  explicit TestUser(const std::string& tag, const fs::path& home, const std::string& extra_group = "")
      : name_("kfu" + tag + std::to_string(::getpid())), home_(home) {
    if (::geteuid() != 0) throw std::runtime_error("this test creates users: run it as root (CI does)");
    run_or_throw("useradd -M -U -s /usr/sbin/nologin " + (extra_group.empty() ? "" : "-G " + extra_group + " ") +
                 name_);
    const passwd* pw = ::getpwnam(name_.c_str());
    if (!pw) throw std::runtime_error("useradd " + name_ + " left no account");
    uid_ = pw->pw_uid;
    gid_ = pw->pw_gid;
  }
  ~TestUser() {
    [[maybe_unused]] int rc = std::system(("userdel -f " + name_ + " 2>/dev/null").c_str());
    rc = std::system(("groupdel " + name_ + " 2>/dev/null").c_str());
  }
  TestUser(const TestUser&) = delete;
  TestUser& operator=(const TestUser&) = delete;

  const std::string& name() const { return name_; }
  uid_t uid() const { return uid_; }
  RunAs as() const { return RunAs{name_, uid_, gid_, home_}; }

 private:
  std::string name_;
  fs::path home_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
};

// True when any user can reach and run `file`: every folder above it searchable by others, the file readable and
// executable by others.
inline bool usable_by_everyone(const fs::path& file) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0 || (st.st_mode & (S_IROTH | S_IXOTH)) != (S_IROTH | S_IXOTH)) return false;
  for (fs::path p = file.parent_path(); !p.empty(); p = p.parent_path()) {
    if (::stat(p.c_str(), &st) != 0 || !(st.st_mode & S_IXOTH)) return false;
    if (p == p.root_path()) break;
  }
  return true;
}

// Lets every user enter and read `dir` (0755): the test users' processes reach their files below it.
inline void open_to_every_user(const fs::path& dir) {
  fs::permissions(dir, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec | fs::perms::others_read |
                           fs::perms::others_exec);
}

// A folder holding kforge, kforged and kforge-eval that a test user can run: the build's bin/ when its path
// allows it, else copies in `scratch`/bin (a CI checkout may sit below a private home folder).
inline fs::path bin_dir_for_users(const fs::path& scratch) {
  const std::vector<std::string> names = {"kforge", "kforged", "kforge-eval"};
  bool usable = true;
  for (const auto& n : names) usable = usable && usable_by_everyone(bin(n));
  if (usable) return bin("kforge").parent_path();
  const fs::path dir = scratch / "bin";
  fs::create_directories(dir);
  for (const auto& n : names) fs::copy_file(bin(n), dir / n, fs::copy_options::overwrite_existing);
  for (const fs::path& p : {scratch, dir, dir / names[0], dir / names[1], dir / names[2]}) open_to_every_user(p);
  return dir;
}

// The exit code, or 128 + the signal that killed it.
inline int wait_exit(pid_t pid) {
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

struct Outcome {
  int code = -1;
  std::string out;
  std::string err;
};

// Runs argv to its end (as `as`, when given), or kills it after `limit` and reports code -1: for commands that
// must not hang (a status reading a hostile spool).
inline Outcome run_bounded(const std::vector<std::string>& argv, const fs::path& scratch, const Env& env,
                           const std::optional<RunAs>& as, std::chrono::seconds limit) {
  static int counter = 0;
  const fs::path out = scratch / ("bounded-" + std::to_string(++counter) + ".out");
  const fs::path err = scratch / ("bounded-" + std::to_string(counter) + ".err");
  const pid_t pid = start_process(argv, out, err, env, as);
  const auto deadline = std::chrono::steady_clock::now() + limit;
  int status = 0;
  pid_t done = 0;
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  Outcome o;
  if (done == pid) {
    o.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  } else {
    ::kill(pid, SIGKILL);
    wait_exit(pid);
    o.code = -1;  // timed out
  }
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
}

inline Outcome run_process(const std::vector<std::string>& argv, const fs::path& scratch, const Env& env = {},
                           const std::optional<RunAs>& as = std::nullopt) {
  return run_bounded(argv, scratch, env, as, std::chrono::hours(24));
}

// Runs `body` in a child process that is user `as` (its groups, gid and uid) and exits with what it returns.
inline pid_t fork_as(const RunAs& as, const std::function<int()>& body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::initgroups(as.name.c_str(), as.gid) != 0 || ::setgid(as.gid) != 0 || ::setuid(as.uid) != 0) ::_exit(126);
    ::_exit(body());
  }
  return pid;
}

// Polls `condition` every 50 ms for up to `limit` (a bound on waiting for an event, not a timing assertion).
inline bool eventually(const std::function<bool()>& condition, std::chrono::seconds limit = std::chrono::seconds(60)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return condition();
}

// True while some process holds an flock on `file`.
inline bool lock_held(const fs::path& file) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  const bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0;
  ::close(fd);
  return held;
}

inline bool folder_has_file(const fs::path& dir) {
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".h5") return true;
  }
  return false;
}

// A copy of a test campaign with its `name:` replaced.
inline fs::path campaign_named(const fs::path& scratch, const std::string& source, const std::string& old_name,
                               const std::string& new_name) {
  std::string text = slurp(fs::path(KFORGE_SOURCE_DIR) / "tests/integration/data" / source);
  const std::string from = "name: " + old_name;
  text.replace(text.find(from), from.size(), "name: " + new_name);
  const fs::path file = scratch / (new_name + ".yaml");
  std::ofstream(file) << text;
  return file;
}

}  // namespace kforge::test
