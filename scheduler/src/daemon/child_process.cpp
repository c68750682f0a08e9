#include "kforge/scheduler/daemon/child_process.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <stdexcept>

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

// Child side between fork and exec: only async-signal-safe calls. Never returns.
[[noreturn]] void exec_child(const std::vector<char*>& argv, const char* log, pid_t daemon) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != daemon) ::_exit(1);  // the daemon died before prctl took effect
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);  // the daemon blocks signals for its signalfd; exec keeps the mask
  ::setpgid(0, 0);
  int fd = ::open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
  }
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
  ::execv(argv[0], argv.data());
  const char* msg = "kforged: could not exec the kforge child: ";
  [[maybe_unused]] ssize_t w = ::write(STDERR_FILENO, msg, std::strlen(msg));
  const char* why = std::strerror(errno);
  w = ::write(STDERR_FILENO, why, std::strlen(why));
  w = ::write(STDERR_FILENO, "\n", 1);
  ::_exit(127);
}

}  // namespace

pid_t spawn_child(const std::vector<std::string>& argv, const fs::path& log) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string log_path = log.string();
  const pid_t daemon = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
  if (pid == 0) exec_child(args, log_path.c_str(), daemon);
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
