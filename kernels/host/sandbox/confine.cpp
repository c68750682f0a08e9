#include "sandbox/confine.hpp"

#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "kforge/kernels/seccomp_filters.hpp"

namespace kforge::kernels::host {
namespace {

std::string failure(const std::string& what) { return what + ": " + std::strerror(errno); }

}  // namespace

std::string drop_to_candidate_user(const std::filesystem::path& scratch, std::string& who) {
  if (::geteuid() != 0) {
    who = "the evaluator's own user (uid " + std::to_string(::geteuid()) + ")";
    return {};
  }
  const passwd* user = ::getpwnam(kCandidateUser);
  if (user == nullptr) user = ::getpwnam("nobody");
  const uid_t uid = user ? user->pw_uid : 65534;
  const gid_t gid = user ? user->pw_gid : 65534;
  const std::string name = user ? user->pw_name : "uid 65534";
  // The candidate may write its scratch folder only; everything else root made stays root's.
  if (::chown(scratch.c_str(), uid, gid) != 0) return failure("chown " + scratch.string());
  if (::setgroups(0, nullptr) != 0) return failure("setgroups");
  if (::setresgid(gid, gid, gid) != 0) return failure("setresgid");
  if (::setresuid(uid, uid, uid) != 0) return failure("setresuid");
  if (::setresuid(0, 0, 0) == 0) return "could still become root after dropping to " + name;
  who = name + " (uid " + std::to_string(uid) + ")";
  return {};
}

std::string confine_candidate_process(const std::filesystem::path& scratch, pid_t harness, std::string& report) {
  std::string who;
  if (auto f = drop_to_candidate_user(scratch, who); !f.empty()) return f;
  // Changing the user cleared the parent-death signal (prctl(2)). Armed again, or a candidate in a session of its
  // own would outlive a harness that is killed; and if the harness died in between, this process goes now.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0) return failure("prctl(PR_SET_PDEATHSIG)");
  if (::getppid() != harness) ::_exit(125);
  int abi = 0;
  if (auto f = restrict_files(scratch, candidate_read_only_paths(), abi); !f.empty()) return f;
  if (auto f = install_candidate_filter(::getpid()); !f.empty()) return f;
  report = "candidate process as " + who + "; files: " +
           (abi > 0 ? "scratch folder only (Landlock ABI " + std::to_string(abi) + ")"
                    : "NOT confined (this kernel has no Landlock)") +
           "; seccomp: no processes, sockets, tracing or signals beyond itself";
  return {};
}

}  // namespace kforge::kernels::host
