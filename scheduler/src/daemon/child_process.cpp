#include "kforge/scheduler/daemon/child_process.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

extern char** environ;

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

void say(const char* a, const char* b = "") {
  [[maybe_unused]] ssize_t w = ::write(STDERR_FILENO, a, std::strlen(a));
  w = ::write(STDERR_FILENO, b, std::strlen(b));
  w = ::write(STDERR_FILENO, "\n", 1);
}

struct ChildPlan {
  std::vector<char*> argv;
  std::vector<char*> envp;
  const char* log;
  const char* workdir;
  const Account* user;
  bool switch_user;
  mode_t mask;
  pid_t daemon;
};

// Child side between fork and exec: only async-signal-safe calls. Never returns.
[[noreturn]] void exec_child(const ChildPlan& p) {
  // The identity first: nothing below (the log file, the program) may happen as root. Changing ids clears the
  // parent-death signal, so that comes after.
  if (const char* failed = become_for_good(*p.user, p.switch_user)) {
    say("kforged: refusing to start the kforge child: could not become the campaign's user: ", failed);
    ::_exit(126);
  }
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != p.daemon) ::_exit(1);  // the daemon died before prctl took effect
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);  // the daemon blocks signals for its signalfd; exec keeps the mask
  ::setpgid(0, 0);
  ::umask(p.mask);
  if (::chdir(p.workdir) != 0 && ::chdir("/") != 0) ::_exit(1);
  int fd = ::open(p.log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0640);
  if (fd >= 0) {
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
  }
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
  ::execve(p.argv[0], p.argv.data(), p.envp.data());
  say("kforged: could not exec the kforge child: ", std::strerror(errno));
  ::_exit(127);
}

// The daemon's environment (SLURM_CONF, PATH, ...) with the user's HOME, USER and LOGNAME.
std::vector<std::string> child_environment(const Account& user, bool switch_user) {
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    if (switch_user && (kv.rfind("HOME=", 0) == 0 || kv.rfind("USER=", 0) == 0 || kv.rfind("LOGNAME=", 0) == 0)) {
      continue;
    }
    env.push_back(kv);
  }
  if (switch_user) {
    env.push_back("HOME=" + user.home);
    env.push_back("USER=" + user.name);
    env.push_back("LOGNAME=" + user.name);
  }
  return env;
}

}  // namespace

pid_t spawn_child(const std::vector<std::string>& argv, const fs::path& log, const Account& user, bool switch_user,
                  mode_t mask) {
  std::vector<std::string> env = child_environment(user, switch_user);
  const std::string log_path = log.string();
  const std::string workdir = log.parent_path().string();
  ChildPlan plan{{}, {}, log_path.c_str(), workdir.c_str(), &user, switch_user, mask, ::getpid()};
  for (const auto& a : argv) plan.argv.push_back(const_cast<char*>(a.c_str()));
  plan.argv.push_back(nullptr);
  for (auto& e : env) plan.envp.push_back(e.data());
  plan.envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) exec_child(plan);
  return pid;
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with code " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + ::strsignal(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

std::vector<std::string> kforge_run_command(const fs::path& kforge_binary, const fs::path& dir) {
  return {kforge_binary.string(),
          "run",
          (dir / "campaign.yaml").string(),
          "--site",
          (dir / "site.yaml").string(),
          "--out",
          dir.string()};
}

fs::path locate_kforge_binary() {
  if (const char* env = std::getenv("KFORGE_BIN"); env && *env) {
    if (::access(env, X_OK) != 0)
      throw std::runtime_error(std::string("KFORGE_BIN=") + env + ": not an executable file");
    return env;
  }
  std::error_code ec;
  const fs::path self = fs::read_symlink("/proc/self/exe", ec);
  const fs::path candidate = self.parent_path() / "kforge";
  if (ec || ::access(candidate.c_str(), X_OK) != 0) {
    throw std::runtime_error("kforge not found beside " + self.string() + " (install it there, or set KFORGE_BIN)");
  }
  return candidate;
}

std::string last_line_of(const fs::path& log) {
  std::ifstream in(log, std::ios::binary);
  if (!in) return "";
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  const std::streamoff start = size > 4096 ? size - 4096 : 0;  // the end is all we need
  in.seekg(start);
  std::string tail(static_cast<size_t>(size - start), '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == '\r' || tail.back() == ' ')) tail.pop_back();
  const size_t nl = tail.rfind('\n');
  return nl == std::string::npos ? tail : tail.substr(nl + 1);
}

}  // namespace kforge::scheduler::daemon
