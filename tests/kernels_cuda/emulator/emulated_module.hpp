#pragma once
// A CUDA module on a FAKE GPU (README.md): its CUDA C++ compiled as host C++ with cuda_emulation_runtime.hpp
// force-included, loaded with dlopen, each named kernel launched by the CPU emulation. For tests only, on machines
// without a GPU: the cuda engine's device (emulated_engine_device.hpp) and the kernel families' templates
// (kda_family_emulated_test.cpp) run on it.
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "family.hpp"

namespace kforge::kernels::cuda {

class EmulatedModule {
 public:
  // Compiles `source` with `defines` ("-DNAME=VALUE"), exporting the extern "C" kernels `kernels`; the library is
  // cached in work_dir by a hash of all three. Throws std::runtime_error with the compiler's output when the source
  // does not compile as host C++.
  EmulatedModule(const std::string& source, const std::vector<std::string>& defines,
                 const std::vector<std::string>& kernels, const std::filesystem::path& work_dir);
  ~EmulatedModule();
  EmulatedModule(const EmulatedModule&) = delete;
  EmulatedModule& operator=(const EmulatedModule&) = delete;

  // Runs the kernel over l's grid and block with l's dynamic shared memory; throws std::runtime_error naming the
  // kernel when it cannot (no such kernel, threads waiting at different barriers).
  void launch(std::string_view name, const LaunchConfig& l, KernelArgs& args);

 private:
  using LaunchFn = const char* (*)(const char*, const unsigned*, const unsigned*, std::size_t, void**);
  void* library_ = nullptr;
  LaunchFn launch_ = nullptr;
};

}  // namespace kforge::kernels::cuda
