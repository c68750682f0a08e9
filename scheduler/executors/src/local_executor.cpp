#include <fcntl.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>

#include "kforge/scheduler/executors/elapsed.hpp"
#include "kforge/scheduler/executors/executor.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;

namespace {

// Child side of a task launch: output to the log, die with the driver, exec mpirun. Never returns.
[[noreturn]] void exec_task(const std::vector<std::string>& argv, const fs::path& log) {
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);  // a killed driver must not leave tasks writing behind its back
  int fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
  }
  int devnull = ::open("/dev/null", O_RDONLY);
  if (devnull >= 0) ::dup2(devnull, STDIN_FILENO);
  if (::geteuid() == 0) {  // OpenMPI refuses root unless told; containers and CI run as root
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT", "1", 1);
    ::setenv("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1", 1);
  }
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  ::execvp(args[0], args.data());
  std::string msg = "kforge: could not start " + argv[0] + ": " + std::strerror(errno) + "\n";
  [[maybe_unused]] ssize_t w = ::write(STDERR_FILENO, msg.data(), msg.size());
  ::_exit(127);
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) {
    int code = WEXITSTATUS(status);
    if (code == 127) return "exited with code 127 (mpirun or kforge-eval could not be started; see the task log)";
    return "exited with code " + std::to_string(code);
  }
  if (WIFSIGNALED(status)) return std::string("killed by signal ") + ::strsignal(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

}  // namespace

LocalExecutor::LocalExecutor(LocalExecutorSpec spec, fs::path eval_binary)
    : spec_(std::move(spec)), eval_binary_(std::move(eval_binary)) {}

std::vector<std::string> LocalExecutor::command_for(const TaskLaunch& t) const {
  std::vector<std::string> argv{spec_.mpirun, "-np", std::to_string(spec_.ranks_per_task)};
  argv.insert(argv.end(), spec_.mpirun_args.begin(), spec_.mpirun_args.end());
  argv.insert(argv.end(), {"--bind-to", "none", eval_binary_.string(), "--manifest", t.manifest.string()});
  return argv;
}

std::vector<TaskEnd> LocalExecutor::run_all(const std::vector<TaskLaunch>& tasks) {
  std::vector<TaskEnd> ends(tasks.size());
  std::map<pid_t, size_t> running;  // pid -> index into tasks
  size_t next = 0;
  const size_t limit = static_cast<size_t>(std::max(1, spec_.max_concurrent_tasks));
  while (next < tasks.size() || !running.empty()) {
    while (next < tasks.size() && running.size() < limit) {
      const TaskLaunch& t = tasks[next];
      fs::create_directories(t.log.parent_path());
      ends[next].task = t.task;
      pid_t pid = ::fork();
      if (pid < 0) {
        ends[next].reason = std::string("fork failed: ") + std::strerror(errno);
      } else if (pid == 0) {
        exec_task(command_for(t), t.log);
      } else {
        running[pid] = next;
      }
      ++next;
    }
    if (running.empty()) continue;
    int status = 0;
    pid_t pid = -1;
    if (!stop_requested()) {
      AddElapsedTo timed(times_.waiting_s);
      pid = ::waitpid(-1, &status, 0);
    }
    if (stop_requested()) {
      for (const auto& [child, index] : running) ::kill(child, SIGTERM);  // mpirun passes it on to its ranks
      for (const auto& [child, index] : running) ::waitpid(child, nullptr, 0);
      throw StopRequested("stopped by a signal; " + std::to_string(running.size()) + " running task(s) ended");
    }
    if (pid < 0) {
      if (errno == EINTR) continue;
      throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
    }
    auto it = running.find(pid);
    if (it == running.end()) continue;  // not ours
    TaskEnd& end = ends[it->second];
    end.succeeded = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    end.reason = end.succeeded ? "" : describe_wait_status(status);
    running.erase(it);
  }
  return ends;
}

fs::path locate_eval_binary() {
  if (const char* env = std::getenv("KFORGE_EVAL"); env && *env) {
    if (!fs::exists(env)) throw std::runtime_error(std::string("KFORGE_EVAL=") + env + ": no such file");
    return env;
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  fs::path candidate = self.parent_path() / "kforge-eval";
  if (ec || !fs::exists(candidate)) {
    throw std::runtime_error("kforge-eval not found beside " + self.string() +
                             " (build it, or set KFORGE_EVAL to its path)");
  }
  return candidate;
}

}  // namespace kforge::scheduler
