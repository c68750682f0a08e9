#pragma once
// Where the cuda engine's launch plan (cuda_engine_plan.hpp) runs: device memory, copies, kernel launches by name
// and marks on the one stream the harness owns, in order. Two implementations: the GPU through the driver API
// (driver_engine_device.hpp), and, in tests only, a CPU emulation of the module's kernels
// (tests/kernels_cuda/emulator/) that stands in for the GPU these machines do not have.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "family.hpp"

namespace kforge::kernels::cuda::engine {

class EngineDevice {
 public:
  virtual ~EngineDevice() = default;

  // A device allocation of `bytes`, alive as long as the device; its address as kernels see it. Contents undefined.
  virtual std::uint64_t allocate(std::size_t bytes) = 0;
  // Stream-ordered copies and fill. `upload` may return before the copy ran but after `from` may be reused.
  virtual void upload(std::uint64_t to, const void* from, std::size_t bytes) = 0;
  virtual void download(void* to, std::uint64_t from, std::size_t bytes) = 0;  // complete at synchronize()
  virtual void fill(std::uint64_t to, unsigned char value, std::size_t bytes) = 0;
  // Enqueues the module's kernel `name`. Throws when the launch fails (the evidence names the kernel).
  virtual void launch(std::string_view name, const LaunchConfig& l, KernelArgs& args) = 0;
  // A mark on the stream; elapsed_ms(a, b) is the stream time between two marks, valid after synchronize().
  // Marks are numbered from 0 by each begin_marks().
  virtual void begin_marks() = 0;
  virtual int mark() = 0;
  virtual double elapsed_ms(int from, int to) = 0;
  // Waits until everything enqueued has run. Throws when a kernel failed (illegal address, trap).
  virtual void synchronize() = 0;
  // Device memory in use by this process (MiB), for the peak_memory_mb figure; 0 when unknown.
  virtual double used_memory_mib() = 0;
  // The device memory's bandwidth in bytes/s, measured by copying a buffer of `bytes` (at most 256 MiB) within the
  // device: the physical floor of a run's time (physical_floor.hpp). 0 where there is no real memory to measure.
  virtual double copy_bandwidth(std::size_t bytes) = 0;
};

}  // namespace kforge::kernels::cuda::engine
