#include "kforge/scheduler/daemon/child_process.hpp"

#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

extern char** environ;

namespace kforge::scheduler::daemon {
namespace fs = std::filesystem;

namespace {

// Writes "a" + "b" + errno's text to the report pipe (async-signal-safe), then exits with `code`.
[[noreturn]] void give_up(int report, int code, const char* a, const char* b = "") {
  const char* why = errno != 0 ? std::strerror(errno) : "";
  for (const char* part : {a, b, errno != 0 ? ": " : "", why}) {
    [[maybe_unused]] const ssize_t w = ::write(report, part, std::strlen(part));
  }
  ::_exit(code);
}

struct ChildPlan {
  std::vector<char*> argv;
  std::vector<char*> envp;
  const char* log;
  const char* workdir;
  const char* tmpdir;  // nullptr: keep the daemon's TMPDIR (single-user mode)
  const Account* user;
  bool switch_user;
  mode_t mask;
  pid_t daemon;
  int report;  // write end of the report pipe (close-on-exec: it closes by itself when the program starts)
};

// The campaign's own TMPDIR: made by the child, as the user, private to it. An existing one must be a folder of
// the user's (the user could only have made it so themselves).
bool prepare_tmpdir(const char* dir) {
  if (::mkdir(dir, 0700) != 0 && errno != EEXIST) return false;
  struct stat st {};
  if (::lstat(dir, &st) != 0) return false;
  errno = 0;
  return S_ISDIR(st.st_mode) && st.st_uid == ::geteuid();
}

// The log, as the user: never through a symlink, never a FIFO (whose reader would get the campaign's output and
// could block the child), only a regular file (-2 when something else is there).
int open_log(const char* log) {
  const int fd = ::open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0640);
  if (fd < 0) return -1;
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return -2;
  }
  return fd;
}

// Child side between fork and exec: only async-signal-safe calls. Never returns.
[[noreturn]] void exec_child(const ChildPlan& p) {
  // The identity first: nothing below (the log file, the program) may happen as root. Changing ids clears the
  // parent-death signal, so that comes after.
  if (const char* failed = become_for_good(*p.user, p.switch_user)) {
    errno = 0;
    give_up(p.report, kChildIdentityFailed, "could not become the campaign's user: ", failed);
  }
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != p.daemon) ::_exit(1);  // the daemon died before prctl took effect
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);  // the daemon blocks signals for its signalfd; exec keeps the mask
  ::setpgid(0, 0);
  ::umask(p.mask);
  if (::chdir(p.workdir) != 0) give_up(p.report, kChildSetupFailed, "cannot enter the campaign folder ", p.workdir);
  if (p.tmpdir && !prepare_tmpdir(p.tmpdir)) {
    give_up(p.report, kChildSetupFailed, "cannot use the campaign's TMPDIR (a folder of the user's own) ", p.tmpdir);
  }
  const int log = open_log(p.log);
  if (log == -2) {
    errno = 0;
    give_up(p.report, kChildSetupFailed, "the campaign's log is not a regular file: ", p.log);
  }
  if (log < 0) give_up(p.report, kChildSetupFailed, "cannot open the campaign's log ", p.log);
  const int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (devnull < 0) give_up(p.report, kChildSetupFailed, "cannot open /dev/null");
  if (::dup2(devnull, STDIN_FILENO) < 0 || ::dup2(log, STDOUT_FILENO) < 0 || ::dup2(log, STDERR_FILENO) < 0) {
    give_up(p.report, kChildSetupFailed, "dup2 failed");
  }
  // Nothing else of the daemon's goes with the program (a descriptor inherited from the shell that started the
  // daemon included): the user could take it from their own process (pidfd_getfd). The report pipe closes on exec.
  const unsigned report = static_cast<unsigned>(p.report);
  if (report > 3) ::close_range(3, report - 1, 0);
  ::close_range(report + 1, ~0U, 0);
  errno = 0;
  ::execve(p.argv[0], p.argv.data(), p.envp.data());
  give_up(p.report, kChildExecFailed, "could not exec the kforge child ", p.argv[0]);
}

// The daemon's environment (SLURM_CONF, PATH, KFORGE_CATALOG, ...) with the user's HOME, USER and LOGNAME and
// none of the daemon account's XDG_* folders (the user's own catalog is then $HOME/.local/state/kforge/catalog,
// docs/catalog.md), and with a `tmpdir` the user's own TMPDIR and no KFORGE_TIMING_LOCK (a lock shared with other
// users is one they could hold).
std::vector<std::string> child_environment(const Account& user, bool switch_user, const fs::path& tmpdir) {
  std::vector<std::string> replaced;
  if (switch_user) replaced = {"HOME=", "USER=", "LOGNAME=", "XDG_"};
  if (!tmpdir.empty()) replaced.insert(replaced.end(), {"TMPDIR=", "KFORGE_TIMING_LOCK="});
  std::vector<std::string> env;
  for (char** e = environ; e && *e; ++e) {
    const std::string kv = *e;
    if (std::none_of(replaced.begin(), replaced.end(), [&](const std::string& k) { return kv.rfind(k, 0) == 0; })) {
      env.push_back(kv);
    }
  }
  if (switch_user) {
    env.push_back("HOME=" + user.home);
    env.push_back("USER=" + user.name);
    env.push_back("LOGNAME=" + user.name);
  }
  if (!tmpdir.empty()) env.push_back("TMPDIR=" + tmpdir.string());
  return env;
}

}  // namespace

StartedChild spawn_child(const std::vector<std::string>& argv, const fs::path& log, const fs::path& tmpdir,
                         const Account& user, bool switch_user, mode_t mask) {
  std::vector<std::string> env = child_environment(user, switch_user, tmpdir);
  const std::string log_path = log.string();
  const std::string workdir = log.parent_path().string();
  const std::string tmp = tmpdir.string();
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe failed: ") + std::strerror(errno));
  ChildPlan plan{{},          {},   log_path.c_str(), workdir.c_str(), tmp.empty() ? nullptr : tmp.c_str(), &user,
                 switch_user, mask, ::getpid(),       report[1]};
  for (const auto& a : argv) plan.argv.push_back(const_cast<char*>(a.c_str()));
  plan.argv.push_back(nullptr);
  for (auto& e : env) plan.envp.push_back(e.data());
  plan.envp.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid < 0) {
    const std::string why = std::strerror(errno);
    ::close(report[0]);
    ::close(report[1]);
    throw std::runtime_error("fork failed: " + why);
  }
  if (pid == 0) exec_child(plan);
  ::close(report[1]);
  return StartedChild{pid, report[0]};
}

std::string take_child_report(int report_fd) {
  if (report_fd < 0) return "";
  std::string text;
  char buf[512];
  // The child has ended: its end of the pipe is closed, so this read never waits.
  for (ssize_t n; (n = ::read(report_fd, buf, sizeof buf)) != 0;) {
    if (n < 0 && errno == EINTR) continue;
    if (n < 0 || text.size() > 4096) break;
    text.append(buf, static_cast<std::size_t>(n));
  }
  ::close(report_fd);
  return text;
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

}  // namespace kforge::scheduler::daemon
