#pragma once
// How a process killed by a signal is named in a record's evidence, the same for the harness child
// (mpi_eval/src/sandbox.cpp) and the candidate process (kernels/host/sandbox/candidate_process.cpp).
#include <string>

namespace kforge::kernels {

// "killed by SIGSEGV (segmentation fault)", "exceeded CPU limit (SIGXCPU)", ...
std::string signal_phrase(int sig);

}  // namespace kforge::kernels
