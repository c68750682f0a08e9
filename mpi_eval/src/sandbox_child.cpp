#include "sandbox_child.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <memory>
#include <new>

#include "frame.hpp"
#include "kforge/kernels/candidate_secrets.hpp"
#include "kforge/kernels/seccomp_filters.hpp"
#include "kforge/mpi_eval/child_payload.hpp"

#if defined(__SANITIZE_ADDRESS__)
namespace {
bool sanitized_sandbox_child = false;  // set first thing in run_child
}  // namespace

// LeakSanitizer reads this hook when a process exits (tests/run-sanitizers.sh builds kforge with it): its leak check
// stops the world with a tracer thread, which a sandboxed child's seccomp filter refuses, so a child that exits on
// its own would fail with LeakSanitizer's error instead of its own code. Children skip the check; the parent keeps it.
extern "C" int __lsan_is_turned_off() { return sanitized_sandbox_child ? 1 : 0; }
#endif

namespace kforge::mpi_eval {
namespace {

constexpr int kResultFd = 3;
constexpr rlim_t kOpenFiles = 256;
constexpr int kExitOrphaned = 125;  // the parent died before PR_SET_PDEATHSIG took hold

FrameKey frame_key;  // this child's copy of the run's key; wiped in every candidate process it starts

std::string sys_failure(const char* call) { return std::string(call) + ": " + std::strerror(errno); }

void write_all(int fd, const std::string& bytes) {
  std::size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;  // the parent is gone or closed the pipe: nothing left to tell
    done += static_cast<std::size_t>(n);
  }
}

[[noreturn]] void send_and_exit(const std::string& payload) {
  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  write_all(kResultFd, encode_frame(payload, frame_key));
  ::_exit(0);
}

// The parent may be an MPI rank with its own handlers (OpenMPI prints backtraces on SIGSEGV) and blocked
// signals; the candidate must die of its signals the plain way so the parent can name them.
void reset_signals() {
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sig != SIGKILL && sig != SIGSTOP) ::signal(sig, SIG_DFL);
  }
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

// stdin from /dev/null, stdout+stderr into the output pipe, the result pipe on fd 3, nothing else inherited
// (an MPI rank holds sockets and shared-memory fds the candidate has no business with).
std::string wire_descriptors(ChildPipes pipes) {
  const int null_fd = ::open("/dev/null", O_RDONLY);
  if (null_fd < 0 || ::dup2(null_fd, STDIN_FILENO) < 0) return sys_failure("open /dev/null as stdin");
  if (::dup2(pipes.output_fd, STDOUT_FILENO) < 0 || ::dup2(pipes.output_fd, STDERR_FILENO) < 0) {
    return sys_failure("dup2 output pipe");
  }
  if (pipes.result_fd != kResultFd && ::dup2(pipes.result_fd, kResultFd) < 0) return sys_failure("dup2 result pipe");
  ::fcntl(kResultFd, F_SETFD, 0);
  if (::syscall(SYS_close_range, kResultFd + 1, ~0u, 0) != 0) {
    for (int fd = kResultFd + 1; fd < 65536; ++fd) ::close(fd);  // kernels before 5.9
  }
  return {};
}

// RLIMIT_AS counts the address space the child inherited (an MPI rank maps hundreds of MiB), so the
// candidate's memory budget is added on top of what is mapped at fork time.
rlim_t inherited_address_space() {
  char buf[128] = {};
  const int fd = ::open("/proc/self/statm", O_RDONLY);
  if (fd < 0) return 0;
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return 0;
  return static_cast<rlim_t>(std::strtoull(buf, nullptr, 10)) * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
}

std::string set_limit(int resource, const char* name, rlim_t soft, rlim_t hard) {
  const rlimit lim{soft, hard};
  if (::setrlimit(resource, &lim) != 0) return sys_failure(name);
  return {};
}

std::string apply_limits(const Limits& limits) {
  // SIGXCPU at the soft limit; SIGKILL one second later if the candidate catches it.
  const auto cpu = static_cast<rlim_t>(std::max(1.0, std::ceil(limits.cpu_s)));
  const auto file = static_cast<rlim_t>(std::max<std::int64_t>(limits.file_bytes, 0));
  if (limits.limit_address_space) {
    const auto memory = inherited_address_space() + static_cast<rlim_t>(std::max<std::int64_t>(limits.memory_bytes, 0));
    if (auto failure = set_limit(RLIMIT_AS, "setrlimit(RLIMIT_AS)", memory, memory); !failure.empty()) return failure;
  }
  for (const auto& failure : {set_limit(RLIMIT_CPU, "setrlimit(RLIMIT_CPU)", cpu, cpu + 1),
                              set_limit(RLIMIT_FSIZE, "setrlimit(RLIMIT_FSIZE)", file, file),
                              set_limit(RLIMIT_CORE, "setrlimit(RLIMIT_CORE)", 0, 0),
                              set_limit(RLIMIT_NOFILE, "setrlimit(RLIMIT_NOFILE)", kOpenFiles, kOpenFiles)}) {
    if (!failure.empty()) return failure;
  }
  return {};
}

std::string prepare(const Limits& limits, const std::filesystem::path& scratch, ChildPipes pipes) {
  reset_signals();
  if (auto failure = wire_descriptors(pipes); !failure.empty()) return failure;
  // Line buffered, so a candidate's last words before a crash reach the tail. A buffer must be passed: glibc
  // keeps the old full-buffering pointers of a stream the parent already used when given nullptr.
  static char stdout_buffer[BUFSIZ];
  std::setvbuf(stdout, stdout_buffer, _IOLBF, sizeof stdout_buffer);
  if (::chdir(scratch.c_str()) != 0) return sys_failure(("chdir " + scratch.string()).c_str());
  if (auto failure = apply_limits(limits); !failure.empty()) return failure;
  // Not dumpable: a process of the same user (a candidate process) may not ptrace this one or open its
  // /proc/PID/mem, fd or environ without CAP_SYS_PTRACE.
  if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return sys_failure("prctl(PR_SET_DUMPABLE)");
  if (limits.forbid_processes) return kernels::install_process_ban();
  return {};
}

// What body() produced, or why it produced nothing (see child_payload.hpp).
std::string run_body(const std::function<std::string()>& body) {
  // Memory set aside so that reporting an out-of-memory failure does not itself run out of memory.
  auto reserve = std::make_unique<char[]>(256 * 1024);
  try {
    std::string payload = body();
    if (payload.starts_with('!')) return std::string(kBodyErrorPrefix) + "body returned a payload starting with '!'";
    return payload;
  } catch (const std::bad_alloc& e) {
    reserve.reset();
    return std::string(kBodyErrorPrefix) + std::string(kOutOfMemoryPrefix) + e.what();
  } catch (const std::exception& e) {
    return std::string(kBodyErrorPrefix) + e.what();
  } catch (...) {
    return std::string(kBodyErrorPrefix) + "an exception that is not a std::exception";
  }
}

}  // namespace

void run_child(const Limits& limits, const std::filesystem::path& scratch, const std::function<std::string()>& body,
               ChildPipes pipes, pid_t parent, FrameKey& key) {
#if defined(__SANITIZE_ADDRESS__)
  sanitized_sandbox_child = true;
#endif
  frame_key = key;
  ::explicit_bzero(key.data(), key.size());
  kernels::forget_in_candidate_processes(frame_key.data(), frame_key.size());
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(kExitOrphaned);
  std::string failure;
  try {
    failure = prepare(limits, scratch, pipes);
  } catch (const std::exception& e) {
    failure = e.what();
  }
  if (!failure.empty()) send_and_exit(std::string(kSandboxErrorPrefix) + failure);
  send_and_exit(run_body(body));
}

}  // namespace kforge::mpi_eval
