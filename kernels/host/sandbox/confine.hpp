#pragma once
// Confinement of a candidate process (candidate_process.hpp), applied after fork() and before any of the
// candidate's code is loaded. docs/isolation.md lists what each layer blocks; tests/kernels/isolation attack each.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

namespace kforge::kernels::host {

// All three layers, in order: another user (only when running as root), Landlock (files: the scratch folder
// read-write, system folders read-only, nothing else), seccomp (no processes, sockets, tracing, or signals to
// anything but itself). Returns "" on success, else what failed; `report` says what holds, for the evidence.
// `harness` is the parent's pid: after the change of user the process dies with it again (PR_SET_PDEATHSIG).
std::string confine_candidate_process(const std::filesystem::path& scratch, pid_t harness, std::string& report);

// The layers one by one (each returns "" on success, else what failed).
// Root only: gives the scratch folder to the unprivileged candidate user and becomes that user, no groups.
std::string drop_to_candidate_user(const std::filesystem::path& scratch, std::string& who);
// Landlock; sets `abi` to the kernel's Landlock ABI (0: unsupported, and then nothing is restricted).
std::string restrict_files(const std::filesystem::path& scratch, const std::vector<std::filesystem::path>& read_only,
                           int& abi);

// The folders a candidate may read (libraries, the loader's configuration, CPU topology) and LD_LIBRARY_PATH's.
std::vector<std::filesystem::path> candidate_read_only_paths();

// The user candidates run as when the evaluator is root: "kforge-candidate" if that user exists, else "nobody".
inline constexpr const char* kCandidateUser = "kforge-candidate";

}  // namespace kforge::kernels::host
