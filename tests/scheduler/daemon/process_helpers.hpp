#pragma once
// Helpers for the daemon tests: run the real binaries as processes, wait for files, temp spools.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace kforge::test {

namespace fs = std::filesystem;

inline fs::path bin(const std::string& name) { return fs::path(KFORGE_BINARY_DIR) / "bin" / name; }

inline std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh folder under /tmp, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "kforge-daemon-test-XXXXXX").string();
    path_ = ::mkdtemp(tmpl.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

using Env = std::map<std::string, std::string>;

// Starts argv with stdout to `out` and stderr to `err`; returns the pid.
inline pid_t start_process(const std::vector<std::string>& argv, const fs::path& out, const fs::path& err,
                           const Env& env = {}) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    for (const auto& [k, v] : env) ::setenv(k.c_str(), v.c_str(), 1);
    int o = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int e = ::open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ::dup2(o, STDOUT_FILENO);
    ::dup2(e, STDERR_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  return pid;
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

inline Outcome run_process(const std::vector<std::string>& argv, const fs::path& scratch, const Env& env = {}) {
  static int counter = 0;
  const fs::path out = scratch / ("run-" + std::to_string(++counter) + ".out");
  const fs::path err = scratch / ("run-" + std::to_string(counter) + ".err");
  Outcome o;
  o.code = wait_exit(start_process(argv, out, err, env));
  o.out = slurp(out);
  o.err = slurp(err);
  return o;
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
