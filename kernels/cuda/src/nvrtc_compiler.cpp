#include "nvrtc_compiler.hpp"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>

#include "checked_call.hpp"
#include "nvrtc_api.hpp"

namespace kforge::kernels::cuda {
namespace {

using Clock = std::chrono::steady_clock;

struct ProgramDeleter {
  void operator()(nvrtcProgram* p) const {
    nvrtc().nvrtcDestroyProgram(p);
    delete p;
  }
};
using Program = std::unique_ptr<nvrtcProgram, ProgramDeleter>;

Program create_program(const NvrtcRequest& r) {
  auto handle = std::make_unique<nvrtcProgram>();
  KFORGE_NVRTC_CHECK(
      nvrtc().nvrtcCreateProgram(handle.get(), r.source.c_str(), r.file_name.c_str(), 0, nullptr, nullptr));
  return Program(handle.release());
}

std::string program_log(nvrtcProgram p) {
  std::size_t size = 0;
  KFORGE_NVRTC_CHECK(nvrtc().nvrtcGetProgramLogSize(p, &size));
  std::string log(size, '\0');
  KFORGE_NVRTC_CHECK(nvrtc().nvrtcGetProgramLog(p, log.data()));
  while (!log.empty() && log.back() == '\0') log.pop_back();
  return log;
}

std::string program_ptx(nvrtcProgram p) {
  std::size_t size = 0;
  KFORGE_NVRTC_CHECK(nvrtc().nvrtcGetPTXSize(p, &size));
  std::string ptx(size, '\0');
  KFORGE_NVRTC_CHECK(nvrtc().nvrtcGetPTX(p, ptx.data()));
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

std::string program_cubin(nvrtcProgram p) {
  std::size_t size = 0;
  KFORGE_NVRTC_CHECK(nvrtc().nvrtcGetCUBINSize(p, &size));
  std::string cubin(size, '\0');
  KFORGE_NVRTC_CHECK(nvrtc().nvrtcGetCUBIN(p, cubin.data()));
  return cubin;
}

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out.flush()) throw std::runtime_error("cannot write " + path.string());
}

// The child's half: compile, write every result as a file, exit without running the parent's destructors.
[[noreturn]] void child_compile(const NvrtcRequest& request, const std::filesystem::path& dir) {
  int code = 0;
  try {
    const NvrtcOutput out = compile_with_nvrtc(request);
    write_file(dir / "nvrtc.log", out.log);
    write_file(dir / "candidate.ptx", out.ptx);
    write_file(dir / "candidate.cubin", out.cubin);
    write_file(dir / "nvrtc.status", (out.ok ? "ok\n" : "failed\n") + out.failure);
  } catch (const std::exception& e) {
    try {
      write_file(dir / "nvrtc.status", std::string("error\n") + e.what());
    } catch (...) {
    }
    code = 3;
  }
  _exit(code);
}

// Waits for `pid` until `deadline`; kills it then. Returns the wait status, or nullopt on timeout.
std::optional<int> wait_until(pid_t pid, Clock::time_point deadline) {
  int status = 0;
  for (auto pause = std::chrono::milliseconds(1);; pause = std::min(pause * 2, std::chrono::milliseconds(20))) {
    const pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) return status;
    if (done < 0 && errno != EINTR) throw std::system_error(errno, std::generic_category(), "waitpid(nvrtc child)");
    if (Clock::now() >= deadline) {
      kill(pid, SIGKILL);
      while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
      }
      return std::nullopt;
    }
    std::this_thread::sleep_for(pause);
  }
}

NvrtcOutput collect_child_output(const std::filesystem::path& dir, int wait_status) {
  NvrtcOutput out;
  out.log = read_file(dir / "nvrtc.log");
  std::istringstream status(read_file(dir / "nvrtc.status"));
  std::string verdict;
  std::getline(status, verdict);
  std::getline(status, out.failure, '\0');
  if (WIFSIGNALED(wait_status)) {
    out.failure = "NVRTC crashed with signal " + std::to_string(WTERMSIG(wait_status));
  } else if (verdict == "error") {
    throw std::runtime_error("NVRTC child: " + out.failure);  // NVRTC itself is broken, not the candidate
  } else if (verdict == "ok") {
    out.ok = true;
    out.ptx = read_file(dir / "candidate.ptx");
    out.cubin = read_file(dir / "candidate.cubin");
  } else if (verdict != "failed") {
    out.failure = "NVRTC child exited with status " + std::to_string(WEXITSTATUS(wait_status)) + " and no result";
  }
  return out;
}

}  // namespace

std::vector<std::string> fixed_nvrtc_options(const std::string& arch) {
  return {"-arch=" + arch, "-Xptxas=-v", "-std=c++17"};
}

NvrtcOutput compile_with_nvrtc(const NvrtcRequest& request) {
  const auto start = Clock::now();
  const Program program = create_program(request);
  std::vector<std::string> options = fixed_nvrtc_options(request.arch);
  options.insert(options.end(), request.extra_options.begin(), request.extra_options.end());
  std::vector<const char*> argv;
  for (const auto& o : options) argv.push_back(o.c_str());

  NvrtcOutput out;
  const nvrtcResult result = nvrtc().nvrtcCompileProgram(*program, static_cast<int>(argv.size()), argv.data());
  out.log = program_log(*program);
  if (result == NVRTC_SUCCESS) {
    out.ptx = program_ptx(*program);
    out.cubin = program_cubin(*program);
    out.ok = true;
  } else if (result == NVRTC_ERROR_COMPILATION || result == NVRTC_ERROR_INVALID_OPTION) {
    out.failure = std::string("nvrtcCompileProgram: ") + nvrtc_error_text(result);
  } else {
    throw_nvrtc_error(__FILE__, __LINE__, "nvrtcCompileProgram", result);
  }
  out.compile_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return out;
}

NvrtcOutput compile_isolated(const NvrtcRequest& request, const std::filesystem::path& work_dir,
                             std::chrono::milliseconds timeout) {
  nvrtc();  // load the library here: a missing NVRTC is NoNvrtc (infra_error), and the child inherits it loaded
  std::filesystem::create_directories(work_dir);
  for (const char* stale : {"nvrtc.log", "nvrtc.status", "candidate.ptx", "candidate.cubin"})
    std::filesystem::remove(work_dir / stale);
  const auto start = Clock::now();
  const pid_t pid = fork();
  if (pid < 0) throw std::system_error(errno, std::generic_category(), "fork (NVRTC child)");
  if (pid == 0) child_compile(request, work_dir);

  const std::optional<int> status = wait_until(pid, start + timeout);
  NvrtcOutput out;
  if (!status) {
    out.failure = "NVRTC timed out after " + std::to_string(timeout.count()) + " ms (compile_timeout_s)";
  } else {
    out = collect_child_output(work_dir, *status);
  }
  out.compile_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return out;
}

std::string nvrtc_version_text() {
  int major = 0, minor = 0;
  KFORGE_NVRTC_CHECK(nvrtc().nvrtcVersion(&major, &minor));
  return "NVRTC " + std::to_string(major) + "." + std::to_string(minor);
}

}  // namespace kforge::kernels::cuda
