// The candidate's side of the sandbox boundary (candidate_side.hpp): everything a candidate process does between
// fork() and _exit(). Nothing of the candidate runs before it is confined.
#include "sandbox/candidate_side.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <new>
#include <stdexcept>

#include "kforge/jobs/fd_io.hpp"
#include "kforge/kernels/candidate_secrets.hpp"
#include "sandbox/call_protocol.hpp"
#include "sandbox/confine.hpp"

namespace kforge::kernels::host {
namespace {

using namespace call_protocol;

struct Secret {
  void* data = nullptr;
  std::size_t bytes = 0;
};
std::array<Secret, 8> secrets;

void wipe_secrets() {
  for (const Secret& s : secrets)
    if (s.data != nullptr) ::explicit_bzero(s.data, s.bytes);
}

// A message is one kind byte, then text up to a NUL for the kinds that carry text.
[[noreturn]] void send_and_exit(char kind, const std::string& text, int code) {
  jobs::write_all(kReplyFd, std::string(1, kind) + text + '\0');
  ::_exit(code);
}

void* load_entry(const std::string& path, const std::string& symbol, const std::filesystem::path& shown) {
  void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = ::dlerror();
    send_and_exit(kLoadFailed, "dlopen " + shown.string() + " failed: " + (why ? why : "unknown error"), 1);
  }
  void* entry = ::dlsym(handle, symbol.c_str());
  if (entry == nullptr) send_and_exit(kLoadFailed, "dlsym " + symbol + " in " + shown.string() + " failed", 1);
  return entry;
}

}  // namespace

[[noreturn]] void serve_calls(const CandidateSide& a) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != a.parent) ::_exit(125);
  // A session and process group of its own: stopped between calls, it would otherwise die of (or be woken by) the
  // SIGHUP and SIGCONT the kernel sends a stopped group that becomes orphaned, whenever whatever linked the harness's
  // group to its session exits; and it has no controlling terminal to read or push keystrokes into. It still dies
  // with the harness: PR_SET_PDEATHSIG above, armed again by confine_candidate_process after the change of user.
  ::setsid();
  wipe_secrets();
  if (::dup2(a.command_fd, kCommandFd) < 0 || ::dup2(a.reply_fd, kReplyFd) < 0) ::_exit(126);
  ::fcntl(kCommandFd, F_SETFD, 0);
  ::fcntl(kReplyFd, F_SETFD, 0);
  // The harness's result pipe to the rank (fd 3 there) and everything else it holds stays out of reach.
  if (::syscall(SYS_close_range, kReplyFd + 1, ~0u, 0) != 0) {
    for (int fd = kReplyFd + 1; fd < 65536; ++fd) ::close(fd);
  }
  // Opened before confinement and loaded through /proc/self/fd: as another user the candidate process may not be
  // allowed to walk the path to its own scratch folder (a private temp folder of the rank's user).
  const int artefact_fd = a.builtin ? -1 : ::open(a.artefact.c_str(), O_RDONLY);
  if (!a.builtin && artefact_fd < 0) {
    send_and_exit(kLoadFailed, "cannot open " + a.artefact.string() + ": " + std::strerror(errno), 1);
  }
  std::string report;
  if (const std::string failure = confine_candidate_process(a.scratch, a.parent, report); !failure.empty()) {
    send_and_exit(kConfineFailed, "could not confine the candidate process: " + failure, 1);
  }
  void* entry =
      a.builtin ? a.builtin_entry : load_entry("/proc/self/fd/" + std::to_string(artefact_fd), a.symbol, a.artefact);
  jobs::write_all(kReplyFd, std::string(1, kReady) + report + '\0');
  for (;;) {
    char command = 0;
    const ssize_t n = ::read(kCommandFd, &command, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0 || command != kCall) ::_exit(0);
    try {
      a.invoke(entry, a.base, *reinterpret_cast<const CallHeader*>(a.base));
      std::fflush(nullptr);
      jobs::write_all(kReplyFd, std::string(1, kDone));
    } catch (const std::bad_alloc& e) {
      send_and_exit(kOutOfMemory, e.what(), 1);
    } catch (const std::exception& e) {
      send_and_exit(kThrew, e.what(), 1);
    } catch (...) {
      send_and_exit(kThrew, "an exception that is not a std::exception", 1);
    }
  }
}

}  // namespace kforge::kernels::host
namespace kforge::kernels {

void forget_in_candidate_processes(void* data, std::size_t bytes) {
  for (auto& s : host::secrets)
    if (s.data == data) return;
  for (auto& s : host::secrets) {
    if (s.data == nullptr) {
      s = host::Secret{data, bytes};
      return;
    }
  }
}

}  // namespace kforge::kernels
