#include "kforge/kernels/process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>
#include <system_error>
#include <thread>

namespace kforge::kernels::detail {
namespace {

using Clock = std::chrono::steady_clock;

[[noreturn]] void throw_errno(const char* what) { throw std::system_error(errno, std::generic_category(), what); }

// Both ends close on exec so that no other child inherits them; the child dup2()s the write end.
struct Pipe {
  int read_end = -1;
  int write_end = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) throw_errno("run_process: pipe2");
    read_end = fds[0];
    write_end = fds[1];
  }
  ~Pipe() {
    if (read_end >= 0) ::close(read_end);
    if (write_end >= 0) ::close(write_end);
  }
  Pipe(const Pipe&) = delete;
  Pipe& operator=(const Pipe&) = delete;
};

// Only async-signal-safe calls between fork and exec: the argument vector is prepared by the parent.
[[noreturn]] void exec_child(char* const* argv, const char* cwd, int out_fd, const std::string& exec_failed) {
  ::setpgid(0, 0);
  ::dup2(out_fd, STDOUT_FILENO);
  ::dup2(out_fd, STDERR_FILENO);
  if (cwd[0] != '\0' && ::chdir(cwd) != 0) {
    static const char msg[] = "run_process: cannot change to the working directory\n";
    [[maybe_unused]] auto n = ::write(STDERR_FILENO, msg, sizeof msg - 1);
    ::_exit(127);
  }
  ::execvp(argv[0], argv);
  [[maybe_unused]] auto n = ::write(STDERR_FILENO, exec_failed.data(), exec_failed.size());
  ::_exit(127);
}

void append_tail(std::string& out, const char* data, std::size_t n, std::size_t max_output) {
  out.append(data, n);
  if (out.size() > 2 * max_output) out.erase(0, out.size() - max_output);  // amortised trimming
}

// Reads the child's output until EOF or the deadline. Returns false when the deadline passed first.
bool drain_until(int fd, Clock::time_point deadline, std::string& out, std::size_t max_output) {
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 100)));
    if (ready < 0 && errno != EINTR) throw_errno("run_process: poll");
    if (ready <= 0) continue;
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n == 0) return true;
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      throw_errno("run_process: read");
    }
    append_tail(out, buffer, static_cast<std::size_t>(n), max_output);
  }
}

// Waits for the child; returns false when the deadline passed first.
bool wait_until(pid_t pid, Clock::time_point deadline, int& status) {
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return true;
    if (r < 0 && errno != EINTR) throw_errno("run_process: waitpid");
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

ProcessResult run_process(const std::vector<std::string>& argv, const std::filesystem::path& cwd,
                          std::chrono::milliseconds timeout, std::size_t max_output) {
  if (argv.empty()) throw std::invalid_argument("run_process: empty argument vector");
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const std::string cwd_text = cwd.string();
  const std::string exec_failed = "run_process: cannot execute '" + argv[0] + "' (not found or not executable)\n";

  Pipe pipe;
  const auto start = Clock::now();
  const auto deadline = start + timeout;
  const pid_t pid = ::fork();
  if (pid < 0) throw_errno("run_process: fork");
  if (pid == 0) exec_child(args.data(), cwd_text.c_str(), pipe.write_end, exec_failed);
  ::setpgid(pid, pid);  // also here, so the group exists before we might kill it
  ::close(pipe.write_end);
  pipe.write_end = -1;

  ProcessResult result;
  int status = 0;
  bool finished = drain_until(pipe.read_end, deadline, result.output, max_output);
  finished = finished && wait_until(pid, deadline, status);
  if (!finished) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    result.timed_out = true;
  }
  if (result.output.size() > max_output) result.output.erase(0, result.output.size() - max_output);
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return result;
}

std::vector<std::string> split_on_whitespace(const std::string& text) {
  std::vector<std::string> words;
  std::istringstream in(text);
  for (std::string w; in >> w;) words.push_back(w);
  return words;
}

}  // namespace kforge::kernels::detail
