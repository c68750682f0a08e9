#include "sandbox/candidate_process.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <sstream>

#include "kforge/jobs/fd_io.hpp"
#include "kforge/kernels/signal_phrase.hpp"
#include "sandbox/call_protocol.hpp"
#include "sandbox/candidate_side.hpp"

namespace kforge::kernels::host {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kHeaderBytes = 4096;
constexpr std::size_t kAlign = 64;
constexpr std::size_t kSmallestMapping = 16u << 20;  // fewer restarts for the small verification shapes
using namespace call_protocol;

std::size_t aligned(std::size_t n) { return (n + kAlign - 1) / kAlign * kAlign; }

std::string death_of(int status) {
  if (WIFEXITED(status))
    return "exited with code " + std::to_string(WEXITSTATUS(status)) + " before reporting a result";
  if (!WIFSIGNALED(status)) return "stopped answering";
  return signal_phrase(WTERMSIG(status));
}

}  // namespace

}  // namespace kforge::kernels::host

namespace kforge::kernels::host {

TimeResult with_confinement_note(TimeResult result, const std::string& confinement) {
  if (confinement.find("NOT confined") == std::string::npos) return result;
  result.evidence += (result.evidence.empty() ? "" : "\n") + std::string("sandbox: ") + confinement;
  return result;
}

std::size_t layout_bytes(std::span<const CallBuffer> buffers) {
  std::size_t total = kHeaderBytes;
  for (const auto& b : buffers) total += aligned(b.bytes);
  return total;
}

CandidateProcess::CandidateProcess(std::filesystem::path artefact, std::string symbol, Invoke invoke,
                                   std::filesystem::path scratch)
    : artefact_(std::move(artefact)), symbol_(std::move(symbol)), invoke_(invoke), scratch_(std::move(scratch)) {}

CandidateProcess::CandidateProcess(void* builtin_entry, Invoke invoke, std::filesystem::path scratch)
    : builtin_entry_(builtin_entry), builtin_(true), invoke_(invoke), scratch_(std::move(scratch)) {}

CandidateProcess::~CandidateProcess() { stop(); }

void CandidateProcess::stop() noexcept {
  command_fd_.reset();
  reply_fd_.reset();
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  pid_ = -1;
  if (base_ != nullptr) ::munmap(base_, mapping_bytes_);
  base_ = nullptr;
  mapping_bytes_ = 0;
}

void CandidateProcess::fail(const std::string& during) {
  command_fd_.reset();
  reply_fd_.reset();
  int status = 0;
  pid_t done = 0;
  if (pid_ > 0) {
    ::kill(pid_, SIGCONT);  // a stopped process cannot finish dying
    // It usually is gone already (its reply pipe hung up); one that is still running broke the protocol.
    for (int tries = 0; tries < 100 && done == 0; ++tries) {
      done = ::waitpid(pid_, &status, WNOHANG);
      if (done == 0) ::usleep(1000);
    }
    if (done == 0) {
      ::kill(pid_, SIGKILL);
      while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
      }
      pid_ = -1;
      stop();
      throw CandidateFault("candidate process broke the call protocol " + during);
    }
  }
  const std::string why = done == pid_ ? death_of(status) : "vanished";
  pid_ = -1;
  stop();
  throw CandidateFault("candidate process " + why + " " + during);
}

// Reads one message; returns its kind and sets `text` for the kinds that carry one.
namespace {
char read_message(int fd, std::string& text) {
  char kind = 0;
  for (;;) {
    const ssize_t n = ::read(fd, &kind, 1);
    if (n == 1) break;
    if (n < 0 && errno == EINTR) continue;
    return 0;
  }
  if (kind == kDone) return kind;
  text.clear();
  constexpr std::size_t kMostText = 64 * 1024;
  for (char c = 0; text.size() < kMostText;) {
    const ssize_t n = ::read(fd, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || c == '\0') break;
    text.push_back(c);
  }
  return kind;
}

// Waits until the process is stopped; false when it ended instead.
bool wait_stopped(pid_t pid, int& status) {
  for (;;) {
    const pid_t r = ::waitpid(pid, &status, WUNTRACED);
    if (r < 0 && errno == EINTR) continue;
    return r == pid && WIFSTOPPED(status);
  }
}
}  // namespace

void CandidateProcess::start(std::size_t mapping_bytes) {
  stop();
  void* base =
      ::mmap(nullptr, mapping_bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    throw CandidateOutOfMemory("cannot map " + std::to_string(mapping_bytes >> 20) +
                               " MiB for the candidate's arguments: " + std::strerror(errno));
  }
  base_ = static_cast<std::byte*>(base);
  mapping_bytes_ = mapping_bytes;
  int command[2], reply[2];
  if (::pipe2(command, O_CLOEXEC) != 0 || ::pipe2(reply, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("candidate process: pipe2 failed: ") + std::strerror(errno));
  }
  // A candidate process that dies between calls must not take the harness with it through SIGPIPE.
  ::signal(SIGPIPE, SIG_IGN);
  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("candidate process: fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    serve_calls(CandidateSide{artefact_, symbol_, builtin_entry_, builtin_, invoke_, scratch_, base_, command[0],
                              reply[1], parent});
  }
  pid_ = pid;
  ::close(command[0]);
  ::close(reply[1]);
  command_fd_ = jobs::UniqueFd(command[1]);
  reply_fd_ = jobs::UniqueFd(reply[0]);
  std::string text;
  const char kind = read_message(reply_fd_.get(), text);
  if (kind == kLoadFailed || kind == kConfineFailed) {
    stop();
    if (kind == kConfineFailed) throw InfrastructureError(text);  // the node's sandbox, not the candidate
    throw CandidateFault(text);
  }
  if (kind != kReady) fail("while loading the candidate");
  confinement_ = text;
  int status = 0;
  ::kill(pid_, SIGSTOP);
  if (!wait_stopped(pid_, status)) fail("after loading");
}

void CandidateProcess::ensure_started(std::size_t bytes_needed) {
  if (pid_ > 0 && bytes_needed <= mapping_bytes_) return;  // pid_ <= 0: not started yet, or ended after a call
  std::size_t size = std::max(kSmallestMapping, mapping_bytes_);
  while (size < bytes_needed) size *= 2;
  start(size);
}

void CandidateProcess::stage(std::span<const std::int64_t> args, std::span<const CallBuffer> buffers) {
  if (args.size() > CallHeader::kMaxArgs || buffers.size() > CallHeader::kMaxBuffers) {
    throw std::logic_error("candidate process: too many call arguments");
  }
  ensure_started(layout_bytes(buffers));
  CallHeader header{};
  std::copy(args.begin(), args.end(), header.args);
  std::size_t at = kHeaderBytes;
  for (std::size_t n = 0; n < buffers.size(); ++n) {
    header.offsets[n] = at;
    std::memcpy(base_ + at, buffers[n].data, buffers[n].bytes);
    at += aligned(buffers[n].bytes);
  }
  std::memcpy(base_, &header, sizeof header);
}

double CandidateProcess::run() {
  const char command = kCall;
  const auto t0 = Clock::now();
  ::kill(pid_, SIGCONT);
  if (::write(command_fd_.get(), &command, 1) != 1) fail("when called");
  std::string text;
  const char kind = read_message(reply_fd_.get(), text);
  const auto t1 = Clock::now();
  if (kind == kOutOfMemory) {
    stop();
    throw CandidateOutOfMemory(text.empty() ? "std::bad_alloc in the candidate process" : text);
  }
  if (kind == kThrew) fail("after its code threw: " + text);
  if (kind != kDone) fail(kind == 0 ? "during a call" : "during a call, after sending something other than a reply");
  int status = 0;
  ::kill(pid_, SIGSTOP);
  if (!wait_stopped(pid_, status)) {
    pid_ = -1;  // it replied, then ended: this call stands (the mapping stays for collect()), the next call restarts
    command_fd_.reset();
    reply_fd_.reset();
  }
  return std::chrono::duration<double, std::milli>(t1 - t0).count();
}

void CandidateProcess::collect(std::span<const CallBuffer> buffers) {
  std::size_t at = kHeaderBytes;
  for (const auto& b : buffers) {
    std::memcpy(b.data, base_ + at, b.bytes);
    at += aligned(b.bytes);
  }
}

double CandidateProcess::peak_resident_mib() const {
  if (pid_ <= 0) return std::numeric_limits<double>::quiet_NaN();
  std::ifstream status("/proc/" + std::to_string(pid_) + "/status");
  for (std::string line; std::getline(status, line);) {
    if (!line.starts_with("VmHWM:")) continue;
    std::istringstream fields(line.substr(6));
    double kib = 0.0;
    if (fields >> kib) return kib / 1024.0;
  }
  return std::numeric_limits<double>::quiet_NaN();
}

double CandidateProcess::call(std::span<const std::int64_t> args, std::span<const CallBuffer> buffers) {
  stage(args, buffers);
  const double ms = run();
  collect(buffers);
  return ms;
}

}  // namespace kforge::kernels::host
