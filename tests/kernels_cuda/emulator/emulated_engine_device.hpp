#pragma once
// The cuda engine's launch plan on a FAKE GPU (engine_device.hpp): the module's CUDA source compiled as host C++
// with cuda_emulation_runtime.hpp and the harness's defines, loaded with dlopen, its kernels run by the CPU
// emulation. For tests only, on machines without a GPU: it shows that the kernels' arithmetic and the plan's
// launches, buffers, layouts and block tables compute the model; it says nothing about speed, and the driver
// calls of driver_engine_device.cpp are not exercised.
#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cuda_engine_backend.hpp"
#include "emulated_module.hpp"
#include "engine_device.hpp"

namespace kforge::kernels::cuda::engine {

class EmulatedEngineDevice final : public EngineDevice {
 public:
  // Compiles image.source and the harness's module (cached in work_dir by a hash of the source and defines); throws
  // std::runtime_error with the compiler's output when it does not compile.
  EmulatedEngineDevice(const ModuleImage& image, const std::filesystem::path& work_dir);

  std::uint64_t allocate(std::size_t bytes) override;
  void upload(std::uint64_t to, const void* from, std::size_t bytes) override;
  void download(void* to, std::uint64_t from, std::size_t bytes) override;
  void fill(std::uint64_t to, unsigned char value, std::size_t bytes) override;
  void launch(std::string_view name, const LaunchConfig& l, KernelArgs& args) override;
  void launch_harness(std::string_view name, const LaunchConfig& l, KernelArgs& args) override;
  void begin_marks() override { numbers_.restart(); }
  int mark() override;
  double elapsed_ms(int from, int to) override;
  // A graph is the list of its recorded operations, each launch with a copy of its arguments: a plan that passed
  // a value a replay needs fresh as a kernel argument computes with the capture's value, as on a GPU.
  int capture(const std::function<void()>& enqueue) override;
  void replay(int graph) override;
  void synchronize() override { refuse_in_capture(recording_ != nullptr, "a wait for the stream"); }
  double used_memory_mib() override { return static_cast<double>(allocated_) / (1024.0 * 1024.0); }
  double copy_bandwidth(std::size_t) override { return 0.0; }  // a fake GPU has no memory bandwidth to measure

  std::int64_t launches() const { return launches_; }  // kernels run (not recorded)
  std::int64_t replays() const { return replays_; }
  std::size_t graphs() const { return graphs_.size(); }

 private:
  std::vector<std::string> kernels_;  // the module's (declared before module_, which is built from it)
  EmulatedModule module_;
  EmulatedModule harness_;  // cuda_engine_pick.hpp's source, whatever the image (the driver loads its cubin)
  using Operation = std::function<void()>;
  void enqueue_launch(EmulatedModule& module, std::string_view name, const LaunchConfig& l, KernelArgs& args);
  // Runs `op` now, or records it into the graph being captured.
  void enqueue(Operation op);

  std::vector<std::unique_ptr<std::byte[]>> buffers_;
  std::vector<std::chrono::steady_clock::time_point> marks_;  // by mark number
  MarkNumbers numbers_;
  std::vector<std::vector<Operation>> graphs_;
  std::vector<Operation>* recording_ = nullptr;  // the graph being captured
  std::size_t allocated_ = 0;
  std::int64_t launches_ = 0, replays_ = 0;
};

// A DeviceFactory for CudaEngineBackend that emulates every module in `work_dir`.
DeviceFactory emulated_devices(std::filesystem::path work_dir);

}  // namespace kforge::kernels::cuda::engine
