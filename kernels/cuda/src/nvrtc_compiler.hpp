#pragma once
// NVRTC: CUDA C++ source -> PTX and cubin for one architecture, with ptxas's verbose report in the log.
// Needs no GPU and no driver. compile_isolated() runs NVRTC in a forked child under a wall-clock limit, so a
// template that makes the compiler hang or crash costs that candidate only, never the evaluating rank.
#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

namespace kforge::kernels::cuda {

struct NvrtcRequest {
  std::string source;
  std::string file_name = "candidate.cu";  // the name compiler messages use
  std::string arch;                        // "sm_90a", "sm_100a"
  std::vector<std::string> extra_options;  // campaign + candidate flags, after the fixed ones
};

struct NvrtcOutput {
  bool ok = false;
  std::string log;      // NVRTC's program log: compiler errors and ptxas info lines
  std::string failure;  // why !ok in one line: the NVRTC result, a timeout or a crash of the compiler
  std::string ptx;
  std::string cubin;  // the ELF image cuModuleLoadData takes
  double compile_ms = 0.0;
};

// The options NVRTC gets before the extra ones: -arch=<arch>, -Xptxas=-v (resource report), -std=c++17.
std::vector<std::string> fixed_nvrtc_options(const std::string& arch);

// Compiles in this process. Throws CudaCallError only for NVRTC failures that are not the candidate's fault
// (out of memory, a broken NVRTC install); compile errors come back as ok = false with the log.
NvrtcOutput compile_with_nvrtc(const NvrtcRequest& request);

// compile_with_nvrtc in a forked child that writes its results into work_dir (created if needed); the child
// is killed after `timeout`. A timeout or a crash of the compiler is reported as ok = false with `failure`.
NvrtcOutput compile_isolated(const NvrtcRequest& request, const std::filesystem::path& work_dir,
                             std::chrono::milliseconds timeout);

// "NVRTC 13.0" (the version of the library this process loaded).
std::string nvrtc_version_text();

}  // namespace kforge::kernels::cuda
