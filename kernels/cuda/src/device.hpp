#pragma once
// RAII over the driver API for the run stage, which runs in the candidate's child process: the device's
// primary context (fresh in every child: contexts never cross fork()), one stream the harness owns, device
// buffers, and a loaded cubin with its entry function.
#include <cstdint>
#include <string>

#include "driver_api.hpp"
#include "family.hpp"

namespace kforge::kernels::cuda {

class DeviceSession {
 public:
  DeviceSession();  // device 0 of those visible (the rank's binding); throws NoCudaDevice or CudaCallError
  ~DeviceSession();
  DeviceSession(const DeviceSession&) = delete;
  DeviceSession& operator=(const DeviceSession&) = delete;

  const DriverApi& api() const { return api_; }
  CUstream stream() const { return stream_; }
  int attribute(CUdevice_attribute which) const;
  int compute_capability() const;  // 90 for sm_90, 100 for sm_100
  std::string name() const;

 private:
  const DriverApi& api_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
};

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(const DriverApi& api, std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;

  std::uint64_t address() const { return static_cast<std::uint64_t>(ptr_); }
  std::size_t size() const { return bytes_; }
  void upload(const Bytes& data);
  // Sizes `into` to the buffer and enqueues the copy on `stream`, behind whatever that stream already holds;
  // `into` must stay alive and untouched until the stream has been synchronised.
  void enqueue_download(Bytes& into, CUstream stream) const;

 private:
  const DriverApi* api_ = nullptr;
  CUdeviceptr ptr_ = 0;
  std::size_t bytes_ = 0;
};

class LoadedKernel {
 public:
  // Loads the cubin image and finds `entry`. Throws CudaCallError naming the failing call.
  LoadedKernel(const DeviceSession& session, const std::string& cubin, const std::string& entry);
  ~LoadedKernel();
  LoadedKernel(const LoadedKernel&) = delete;
  LoadedKernel& operator=(const LoadedKernel&) = delete;

  void launch(const LaunchConfig& l, KernelArgs& args, CUstream stream) const;

 private:
  const DriverApi& api_;
  CUmodule module_ = nullptr;
  CUfunction function_ = nullptr;
  mutable std::int64_t allowed_dynamic_shared_ = 48 * 1024;  // the default without the opt-in
};

}  // namespace kforge::kernels::cuda
