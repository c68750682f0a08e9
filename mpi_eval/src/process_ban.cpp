#include "process_ban.hpp"

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
#include <iterator>
#include <string>

namespace kforge::mpi_eval {
namespace {

#if defined(__x86_64__)
constexpr __u32 kAuditArch = AUDIT_ARCH_X86_64;
#elif defined(__aarch64__)
constexpr __u32 kAuditArch = AUDIT_ARCH_AARCH64;
#else
#error "kforge sandbox: add the AUDIT_ARCH of this architecture to process_ban.cpp"
#endif

constexpr __u32 kErrnoPerm = SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA);
constexpr __u32 kErrnoNoSys = SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA);
constexpr __u32 kArg0Low = offsetof(seccomp_data, args);  // little-endian: low 32 bits of args[0]

constexpr sock_filter stmt(__u16 code, __u32 k) { return sock_filter{code, 0, 0, k}; }
constexpr sock_filter jump(__u16 code, __u32 k, __u8 jt, __u8 jf) { return sock_filter{code, jt, jf, k}; }

// Each test jumps at most one instruction ahead, so the program reads top to bottom without offsets.
constexpr sock_filter kFilter[] = {
    // A foreign syscall ABI could smuggle calls past the numbers below: kill it.
    stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, arch)),
    jump(BPF_JMP | BPF_JEQ | BPF_K, kAuditArch, 1, 0),
    stmt(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    stmt(BPF_LD | BPF_W | BPF_ABS, offsetof(seccomp_data, nr)),
#if defined(__x86_64__)
    // x32 calls (bit 30 set) alias the 64-bit ones: refuse them all.
    jump(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),
    stmt(BPF_RET | BPF_K, kErrnoPerm),
#endif
#if defined(__NR_fork)
    jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_fork, 0, 1),
    stmt(BPF_RET | BPF_K, kErrnoPerm),
#endif
#if defined(__NR_vfork)
    jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_vfork, 0, 1),
    stmt(BPF_RET | BPF_K, kErrnoPerm),
#endif
    jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_execve, 0, 1),
    stmt(BPF_RET | BPF_K, kErrnoPerm),
    jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_execveat, 0, 1),
    stmt(BPF_RET | BPF_K, kErrnoPerm),
    // clone3 keeps its flags behind a pointer: ENOSYS makes glibc fall back to clone, which is checked.
    jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
    stmt(BPF_RET | BPF_K, kErrnoNoSys),
    jump(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 1, 0),
    stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    // clone: a thread shares the process; anything else is a new process.
    stmt(BPF_LD | BPF_W | BPF_ABS, kArg0Low),
    jump(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 0, 1),
    stmt(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    stmt(BPF_RET | BPF_K, kErrnoPerm),
};

std::string failure(const char* call) { return std::string(call) + " failed: " + std::strerror(errno); }

}  // namespace

std::string install_process_ban() {
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return failure("prctl(PR_SET_NO_NEW_PRIVS)");
  sock_fprog program{static_cast<unsigned short>(std::size(kFilter)), const_cast<sock_filter*>(kFilter)};
  if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &program) != 0) return failure("seccomp(SET_MODE_FILTER)");
  return {};
}

}  // namespace kforge::mpi_eval
