#pragma once
// The cuda engine's launch plan on a FAKE GPU (engine_device.hpp): the module's CUDA source compiled as host C++
// with cuda_emulation_runtime.hpp and the harness's defines, loaded with dlopen, its kernels run by the CPU
// emulation. For tests only, on machines without a GPU: it shows that the kernels' arithmetic and the plan's
// launches, buffers, layouts and block tables compute the model; it says nothing about speed, and the driver
// calls of driver_engine_device.cpp are not exercised.
#include <chrono>
#include <filesystem>
#include <memory>
#include <vector>

#include "cuda_engine_backend.hpp"
#include "emulated_module.hpp"
#include "engine_device.hpp"

namespace kforge::kernels::cuda::engine {

class EmulatedEngineDevice final : public EngineDevice {
 public:
  // Compiles image.source (cached in work_dir by a hash of the source and defines); throws std::runtime_error
  // with the compiler's output when it does not compile.
  EmulatedEngineDevice(const ModuleImage& image, const std::filesystem::path& work_dir);

  std::uint64_t allocate(std::size_t bytes) override;
  void upload(std::uint64_t to, const void* from, std::size_t bytes) override;
  void download(void* to, std::uint64_t from, std::size_t bytes) override;
  void fill(std::uint64_t to, unsigned char value, std::size_t bytes) override;
  void launch(std::string_view name, const LaunchConfig& l, KernelArgs& args) override;
  void begin_marks() override { marks_.clear(); }
  int mark() override;
  double elapsed_ms(int from, int to) override;
  void synchronize() override {}
  double used_memory_mib() override { return static_cast<double>(allocated_) / (1024.0 * 1024.0); }
  double copy_bandwidth(std::size_t) override { return 0.0; }  // a fake GPU has no memory bandwidth to measure

  std::int64_t launches() const { return launches_; }

 private:
  EmulatedModule module_;
  std::vector<std::unique_ptr<std::byte[]>> buffers_;
  std::vector<std::chrono::steady_clock::time_point> marks_;
  std::size_t allocated_ = 0;
  std::int64_t launches_ = 0;
};

// A DeviceFactory for CudaEngineBackend that emulates every module in `work_dir`.
DeviceFactory emulated_devices(std::filesystem::path work_dir);

}  // namespace kforge::kernels::cuda::engine
