#include "agent_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <thread>

#include "kforge/jobs/unique_fd.hpp"

namespace kforge::scheduler::agent_process {
namespace {

using Fd = jobs::UniqueFd;

int open_output(const std::filesystem::path& file) {
  return ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}

// Between fork and exec only async-signal-safe calls: everything the child needs is prepared before fork.
[[noreturn]] void exec_child(char* const* argv, const char* cwd, int in, int out, int err,
                             const std::string& exec_failed) {
  ::setpgid(0, 0);
  ::dup2(in, STDIN_FILENO);
  ::dup2(out, STDOUT_FILENO);
  ::dup2(err, STDERR_FILENO);
  ::close_range(3, ~0U, 0);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::signal(SIGPIPE, SIG_DFL);
  if (::chdir(cwd) == 0) ::execvp(argv[0], argv);
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, exec_failed.data(), exec_failed.size());
  ::_exit(127);
}

void record_status(int status, ProcessResult& result) {
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
}

}  // namespace

ProcessResult run_process_group(const ProcessSpec& spec) {
  ProcessResult result;
  std::vector<char*> argv;
  for (const auto& arg : spec.argv) argv.push_back(const_cast<char*>(arg.c_str()));
  argv.push_back(nullptr);
  const std::string cwd = spec.cwd.string();
  const std::string exec_failed = "kforge: cannot start '" + spec.argv.at(0) + "' in " + cwd +
                                  " (not found, not executable, or the directory is missing)\n";
  const Fd in(::open("/dev/null", O_RDONLY | O_CLOEXEC));
  const Fd out(open_output(spec.stdout_file)), err(open_output(spec.stderr_file));
  if (in.get() < 0 || out.get() < 0 || err.get() < 0) {
    result.problem = "cannot open the agent's output files in " + spec.stdout_file.parent_path().string() + ": " +
                     std::strerror(errno);
    return result;
  }
  const auto start = std::chrono::steady_clock::now();
  const pid_t pid = ::fork();
  if (pid < 0) {
    result.problem = std::string("fork failed: ") + std::strerror(errno);
    return result;
  }
  if (pid == 0) exec_child(argv.data(), cwd.c_str(), in.get(), out.get(), err.get(), exec_failed);
  ::setpgid(pid, pid);  // also here: no window in which a timeout kill could miss the group
  result.started = true;
  const auto deadline = start + std::chrono::duration<double>(spec.timeout_s);
  auto nap = std::chrono::milliseconds(1);
  int status = 0;
  for (;;) {
    const pid_t done = ::waitpid(pid, &status, WNOHANG);
    if (done == pid || (done < 0 && errno != EINTR)) break;
    if (std::chrono::steady_clock::now() >= deadline) {
      result.timed_out = true;
      ::kill(-pid, SIGKILL);
      while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    std::this_thread::sleep_for(nap);
    nap = std::min(nap * 2, std::chrono::milliseconds(20));
  }
  ::kill(-pid, SIGKILL);  // whatever the agent left running in its group goes with it
  record_status(status, result);
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return result;
}

std::string file_tail(const std::filesystem::path& file, std::size_t max_bytes) {
  std::ifstream in(file, std::ios::binary | std::ios::ate);
  if (!in) return "";
  const auto size = static_cast<std::size_t>(in.tellg());
  const std::size_t from = size > max_bytes ? size - max_bytes : 0;
  in.seekg(static_cast<std::streamoff>(from));
  std::string tail(size - from, '\0');
  in.read(tail.data(), static_cast<std::streamsize>(tail.size()));
  if (from > 0)
    if (const auto newline = tail.find('\n'); newline != std::string::npos && newline + 1 < tail.size())
      tail.erase(0, newline + 1);
  return tail;
}

}  // namespace kforge::scheduler::agent_process
