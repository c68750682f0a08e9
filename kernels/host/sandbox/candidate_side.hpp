#pragma once
// The candidate's side of the sandbox boundary: what a candidate process does from fork() on (the harness's side is
// candidate_process.hpp). It drops everything of the harness (its other descriptors, its secrets), confines itself
// (confine.hpp), loads the candidate's shared object and then serves calls: one command byte in, the entry point
// called on the shared mapping, one reply byte out (call_protocol.hpp).
#include <sys/types.h>

#include <cstddef>
#include <filesystem>
#include <string>

#include "sandbox/candidate_process.hpp"

namespace kforge::kernels::host {

struct CandidateSide {
  std::filesystem::path artefact;  // the shared object (ignored for a builtin entry point)
  std::string symbol;
  void* builtin_entry;
  bool builtin;
  Invoke invoke;
  std::filesystem::path scratch;  // the one folder the candidate may write
  std::byte* base;                // the shared mapping
  int command_fd;
  int reply_fd;
  pid_t parent;  // the harness: a candidate process whose parent is gone exits at once
};

// Never returns: the candidate process exits when the harness closes the command pipe, or with the kind of failure.
[[noreturn]] void serve_calls(const CandidateSide& a);

}  // namespace kforge::kernels::host
