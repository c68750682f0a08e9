// The sandbox's seccomp filters: the process ban of a harness child, and the candidate process's filter (the ban,
// a list of syscalls that fail with EPERM, and signalling calls allowed only towards the process itself).
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstring>
#include <string>
#include <vector>

#include "kforge/kernels/seccomp_filters.hpp"

namespace kforge::kernels {
namespace {

#if defined(__x86_64__)
constexpr __u32 kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr __u32 kAuditArch = AUDIT_ARCH_AARCH64;
#else
#error "kforge sandbox: add the AUDIT_ARCH of this architecture to seccomp_filters.cpp"
#endif

constexpr __u32 kAllow = SECCOMP_RET_ALLOW;
constexpr __u32 kPerm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
constexpr __u32 kNoSys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
constexpr __u32 kNr = offsetof(seccomp_data, nr);
constexpr __u32 kArg0Low = offsetof(seccomp_data, args);  // little-endian: the low 32 bits of args[0] (a pid_t)

// Calls that reach outside the process (new processes are refused by the ban at the end): the network, other
// processes' memory, namespaces, io_uring (which would open and connect past this filter), keyrings, tracing.
constexpr long kDenied[] = {
    __NR_socket,  __NR_socketpair,  __NR_ptrace,          __NR_process_vm_readv,  __NR_process_vm_writev,
    __NR_kcmp,    __NR_pidfd_open,  __NR_pidfd_getfd,     __NR_pidfd_send_signal, __NR_setsid,
    __NR_setpgid, __NR_setpriority, __NR_io_uring_setup,  __NR_io_uring_enter,    __NR_io_uring_register,
    __NR_unshare, __NR_setns,       __NR_mount,           __NR_umount2,           __NR_pivot_root,
    __NR_chroot,  __NR_bpf,         __NR_perf_event_open, __NR_userfaultfd,       __NR_keyctl,
    __NR_add_key, __NR_request_key, __NR_process_madvise,
};

// Signals: only to itself (pid or thread group = its own pid). kill(0) and kill(-1) included in "not itself".
constexpr long kSelfOnly[] = {__NR_kill, __NR_tkill, __NR_tgkill, __NR_rt_sigqueueinfo, __NR_rt_tgsigqueueinfo};
// Scheduling and limits: itself (pid or 0) only, so it cannot slow down or starve the harness or other ranks.
constexpr long kSelfOrZero[] = {__NR_prlimit64, __NR_sched_setaffinity, __NR_sched_setscheduler, __NR_sched_setparam,
                                __NR_sched_setattr};

class Program {
 public:
  void stmt(__u16 code, __u32 k) { code_.push_back(sock_filter{code, 0, 0, k}); }
  void jump(__u16 code, __u32 k, __u8 jt, __u8 jf) { code_.push_back(sock_filter{code, jt, jf, k}); }
  void load_nr() { stmt(BPF_LD | BPF_W | BPF_ABS, kNr); }
  // With A = nr: fail `nr` with `ret`.
  void refuse(long nr, __u32 ret) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<__u32>(nr), 0, 1);
    stmt(BPF_RET | BPF_K, ret);
  }
  // With A = nr (kept when nr does not match): allow `nr` only when its first argument is `self` (or 0).
  void only_towards(long nr, __u32 self, bool zero_too) {
    jump(BPF_JMP | BPF_JEQ | BPF_K, static_cast<__u32>(nr), 0, zero_too ? 5 : 4);
    stmt(BPF_LD | BPF_W | BPF_ABS, kArg0Low);
    jump(BPF_JMP | BPF_JEQ | BPF_K, self, zero_too ? 2 : 0, zero_too ? 0 : 1);
    if (zero_too) jump(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);
    if (zero_too) {
      stmt(BPF_RET | BPF_K, kPerm);
      stmt(BPF_RET | BPF_K, kAllow);
    } else {
      stmt(BPF_RET | BPF_K, kAllow);
      stmt(BPF_RET | BPF_K, kPerm);
    }
  }
  sock_fprog fprog() { return sock_fprog{static_cast<unsigned short>(code_.size()), code_.data()}; }

 private:
  std::vector<sock_filter> code_;
};

// Every filter starts here: a foreign syscall ABI could smuggle calls past the numbers below, so it is killed;
// on x86-64 the x32 calls (bit 30 set) alias the 64-bit ones and are refused.
void start(Program& p) {
  p.stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch));
  p.jump(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0);
  p.stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS);
  p.load_nr();
#if defined(__x86_64__)
  p.jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1);
  p.stmt(BPF_RET | BPF_K, kPerm);
#endif
}

// Every filter ends here: no new process (fork, vfork, execve; clone3 is ENOSYS so that glibc falls back to clone,
// whose flags are checked: a thread shares the process, anything else would be a new one).
void finish_with_process_ban(Program& p) {
#if defined(__NR_fork)
  p.refuse(__NR_fork, kPerm);
#endif
#if defined(__NR_vfork)
  p.refuse(__NR_vfork, kPerm);
#endif
  p.refuse(__NR_execve, kPerm);
  p.refuse(__NR_execveat, kPerm);
  p.refuse(__NR_clone3, kNoSys);
  p.jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0);
  p.stmt(BPF_RET | BPF_K, kAllow);
  p.stmt(BPF_LD | BPF_W | BPF_ABS, kArg0Low);
  p.jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1);
  p.stmt(BPF_RET | BPF_K, kAllow);
  p.stmt(BPF_RET | BPF_K, kPerm);
}

std::string install(Program& program) {
  if (::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
    return std::string("prctl(PR_SET_NO_NEW_PRIVS): ") + std::strerror(errno);
  sock_fprog fprog = program.fprog();
  if (::syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog) != 0) {
    return std::string("seccomp(SET_MODE_FILTER): ") + std::strerror(errno);
  }
  return {};
}

}  // namespace

std::string install_process_ban() {
  Program p;
  start(p);
  finish_with_process_ban(p);
  return install(p);
}

std::string install_candidate_filter(pid_t self) {
  const auto me = static_cast<__u32>(self);
  Program p;
  start(p);
  for (long nr : kDenied) p.refuse(nr, kPerm);
  for (long nr : kSelfOnly) p.only_towards(nr, me, false);
  for (long nr : kSelfOrZero) p.only_towards(nr, me, true);
  finish_with_process_ban(p);
  return install(p);
}

}  // namespace kforge::kernels
