#include "ptx_assembler.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <sstream>
#include <system_error>
#include <thread>
#include <vector>

#include "kforge/kernels/backend.hpp"

extern char** environ;

namespace kforge::kernels::cuda {
namespace {

using Clock = std::chrono::steady_clock;

std::string read_all(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace

std::string ptxas_path() {
  if (const char* p = std::getenv("KFORGE_PTXAS"); p != nullptr && *p) return p;
  std::vector<std::string> dirs;
  if (const char* home = std::getenv("CUDA_HOME"); home != nullptr && *home) dirs.push_back(home);
  dirs.emplace_back("/usr/local/cuda");
  for (const auto& d : dirs)
    if (::access((d + "/bin/ptxas").c_str(), X_OK) == 0) return d + "/bin/ptxas";
  return "ptxas";  // from PATH
}

NvrtcOutput assemble_ptx(const std::string& ptx, const std::string& arch, const std::filesystem::path& work_dir,
                         std::chrono::milliseconds timeout) {
  std::filesystem::create_directories(work_dir);
  const auto in = work_dir / "candidate.ptx", out_path = work_dir / "candidate.cubin", log = work_dir / "ptxas.log";
  for (const auto& stale : {out_path, log}) std::filesystem::remove(stale);
  {
    std::ofstream f(in, std::ios::binary | std::ios::trunc);
    f << ptx;
    if (!f.flush()) throw std::runtime_error("cannot write " + in.string());
  }
  const std::string tool = ptxas_path();
  std::vector<std::string> args{tool, "-arch=" + arch, "-v", in.string(), "-o", out_path.string()};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, 1, 2);
  const auto start = Clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawnp(&pid, tool.c_str(), &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  NvrtcOutput out;
  out.ptx = ptx;
  if (spawned != 0)  // the node lacks ptxas: not the candidate's fault
    throw InfrastructureError("no ptxas: cannot start " + tool + ": " + std::generic_category().message(spawned) +
                              " (set KFORGE_PTXAS or CUDA_HOME)");
  int status = 0;
  for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, std::chrono::milliseconds(20))) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid(ptxas)");
    if (Clock::now() - start >= timeout) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      out.failure = "ptxas timed out after " + std::to_string(timeout.count()) + " ms (compile_timeout_s)";
      out.compile_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      return out;
    }
    std::this_thread::sleep_for(pause);
  }
  out.compile_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  out.log = read_all(log);
  if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
    out.ok = true;
    out.cubin = read_all(out_path);
  } else {
    std::string first_error = out.log.substr(0, out.log.find('\n'));
    out.failure = "ptxas " +
                  (WIFSIGNALED(status) ? "died of signal " + std::to_string(WTERMSIG(status))
                                       : "exited with status " + std::to_string(WEXITSTATUS(status))) +
                  ": " + first_error;
  }
  return out;
}

}  // namespace kforge::kernels::cuda
