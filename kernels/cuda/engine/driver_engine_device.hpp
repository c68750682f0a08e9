#pragma once
// The cuda engine's launch plan on a GPU (engine_device.hpp) through the driver API: the candidate's module loaded
// in the child's fresh context, the harness's own stream, device buffers the plan owns, and CUDA events as marks.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "device.hpp"
#include "engine_device.hpp"

namespace kforge::kernels::cuda::engine {

class DriverEngineDevice final : public EngineDevice {
 public:
  // Loads the candidate's cubin and the harness's in the session's context and finds every kernel of kEngineKernels
  // in the first (a module without one of them throws, naming it) and the harness's in the second.
  DriverEngineDevice(std::unique_ptr<DeviceSession> session, const std::string& cubin,
                     const std::string& harness_cubin);
  ~DriverEngineDevice() override;

  std::uint64_t allocate(std::size_t bytes) override;
  void upload(std::uint64_t to, const void* from, std::size_t bytes) override;
  void download(void* to, std::uint64_t from, std::size_t bytes) override;
  void fill(std::uint64_t to, unsigned char value, std::size_t bytes) override;
  void launch(std::string_view name, const LaunchConfig& l, KernelArgs& args) override;
  void launch_harness(std::string_view name, const LaunchConfig& l, KernelArgs& args) override;
  void begin_marks() override { marks_.restart(); }
  int mark() override;
  double elapsed_ms(int from, int to) override;
  int capture(const std::function<void()>& enqueue) override;
  void replay(int graph) override;
  void synchronize() override;
  double used_memory_mib() override { return static_cast<double>(allocated_) / (1024.0 * 1024.0); }
  double copy_bandwidth(std::size_t bytes) override;

  CUstream stream() const { return session_->stream(); }  // the harness's stream (the cuBLAS baseline runs on it)

 private:
  std::unique_ptr<DeviceSession> session_;
  const DriverApi& api_;
  CUmodule module_ = nullptr, harness_module_ = nullptr;
  std::map<std::string, CUfunction, std::less<>> kernels_, harness_kernels_;
  void enqueue(CUfunction f, std::string_view name, const LaunchConfig& l, KernelArgs& args);
  std::vector<DeviceBuffer> buffers_;
  std::vector<CUevent> events_;  // by mark number (MarkNumbers)
  MarkNumbers marks_;
  std::vector<CUgraphExec> graphs_;
  bool capturing_ = false;
  // Downloads land in page-locked memory, which the copy engine writes at full speed (the driver stages a pageable
  // destination through its own small buffers at a fraction of it); synchronize() moves them to their destinations.
  struct PendingDownload {
    void* to = nullptr;
    std::size_t offset = 0, bytes = 0;
  };
  void* pinned_ = nullptr;  // nullptr: none yet, or the driver refused (downloads then go to `to` directly)
  std::size_t pinned_bytes_ = 0, pinned_used_ = 0;
  bool pinned_refused_ = false;
  std::vector<PendingDownload> pending_;
  bool stage(std::size_t bytes);  // room for `bytes` more in the page-locked buffer, or false
  std::size_t allocated_ = 0;
};

}  // namespace kforge::kernels::cuda::engine
