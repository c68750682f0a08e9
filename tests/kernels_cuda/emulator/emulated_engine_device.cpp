#include "emulated_engine_device.hpp"

#include <cstring>
#include <string>

#include "cuda_engine_source.hpp"

namespace kforge::kernels::cuda::engine {

namespace {
// Every required kernel, and each optional one the source defines (as the driver finds what the module has).
std::vector<std::string> engine_kernel_names(const std::string& source) {
  std::vector<std::string> names(kEngineKernels.begin(), kEngineKernels.end());
  for (std::string_view k : kOptionalEngineKernels)
    if (source.find(std::string(k) + "(") != std::string::npos) names.emplace_back(k);
  return names;
}
}  // namespace

EmulatedEngineDevice::EmulatedEngineDevice(const ModuleImage& image, const std::filesystem::path& work_dir)
    : module_(image.source, image.defines, engine_kernel_names(image.source), work_dir) {}

std::uint64_t EmulatedEngineDevice::allocate(std::size_t bytes) {
  buffers_.emplace_back(new std::byte[bytes == 0 ? 1 : bytes]);
  allocated_ += bytes;
  return reinterpret_cast<std::uint64_t>(buffers_.back().get());
}

void EmulatedEngineDevice::upload(std::uint64_t to, const void* from, std::size_t bytes) {
  if (bytes != 0) std::memcpy(reinterpret_cast<void*>(to), from, bytes);
}

void EmulatedEngineDevice::download(void* to, std::uint64_t from, std::size_t bytes) {
  if (bytes != 0) std::memcpy(to, reinterpret_cast<const void*>(from), bytes);
}

void EmulatedEngineDevice::fill(std::uint64_t to, unsigned char value, std::size_t bytes) {
  if (bytes != 0) std::memset(reinterpret_cast<void*>(to), value, bytes);
}

void EmulatedEngineDevice::launch(std::string_view name, const LaunchConfig& l, KernelArgs& args) {
  ++launches_;
  module_.launch(name, l, args);
}

int EmulatedEngineDevice::mark() {
  marks_.push_back(std::chrono::steady_clock::now());
  return static_cast<int>(marks_.size()) - 1;
}

double EmulatedEngineDevice::elapsed_ms(int from, int to) {
  return std::chrono::duration<double, std::milli>(marks_.at(static_cast<std::size_t>(to)) -
                                                   marks_.at(static_cast<std::size_t>(from)))
      .count();
}

DeviceFactory emulated_devices(std::filesystem::path work_dir) {
  return [work_dir](const ModuleImage& image) -> std::unique_ptr<EngineDevice> {
    return std::make_unique<EmulatedEngineDevice>(image, work_dir);
  };
}

}  // namespace kforge::kernels::cuda::engine
