#pragma once
// PTX candidates (issue 14 item 3): a candidate whose source is PTX (its first statement is `.version`) is
// assembled by the toolkit's ptxas instead of compiled by NVRTC. ptxas -v prints the same per-function
// resource lines NVRTC's log carries, so the figures, checks, cache, verification and timing that follow are
// the ones every CUDA candidate goes through; malformed PTX is a compile_error with ptxas's own message.
#include <chrono>
#include <filesystem>
#include <string>

#include "kforge/jobs/source_kind.hpp"
#include "nvrtc_compiler.hpp"

namespace kforge::kernels::cuda {

// True when the source's first statement (after blank lines and // comments) is a PTX `.version` directive.
using jobs::is_ptx_source;

// The ptxas that is run: $KFORGE_PTXAS, else $CUDA_HOME/bin/ptxas, /usr/local/cuda/bin/ptxas, else "ptxas".
std::string ptxas_path();

// ptxas -arch=<arch> -v candidate.ptx -o candidate.cubin in work_dir, killed after `timeout`. The result has
// the shape of NVRTC's (log = ptxas's output, cubin, the PTX itself); a failure names ptxas's exit.
NvrtcOutput assemble_ptx(const std::string& ptx, const std::string& arch, const std::filesystem::path& work_dir,
                         std::chrono::milliseconds timeout);

}  // namespace kforge::kernels::cuda
