#include "emulated_engine_device.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include "cuda_engine_pick.hpp"
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
    : kernels_(engine_kernel_names(image.source)),
      module_(image.source, image.defines, kernels_, work_dir),
      harness_(pick_module_source(), {}, {std::string(kPickPart), std::string(kPickRow)}, work_dir) {}

std::uint64_t EmulatedEngineDevice::allocate(std::size_t bytes) {
  buffers_.emplace_back(new std::byte[bytes == 0 ? 1 : bytes]);
  allocated_ += bytes;
  return reinterpret_cast<std::uint64_t>(buffers_.back().get());
}

void EmulatedEngineDevice::enqueue(Operation op) {
  if (recording_ != nullptr)
    recording_->push_back(std::move(op));
  else
    op();
}

void EmulatedEngineDevice::upload(std::uint64_t to, const void* from, std::size_t bytes) {
  refuse_in_capture(recording_ != nullptr, "a copy from the host");
  if (bytes != 0) std::memcpy(reinterpret_cast<void*>(to), from, bytes);
}

void EmulatedEngineDevice::download(void* to, std::uint64_t from, std::size_t bytes) {
  refuse_in_capture(recording_ != nullptr, "a copy to the host");
  if (bytes != 0) std::memcpy(to, reinterpret_cast<const void*>(from), bytes);
}

void EmulatedEngineDevice::fill(std::uint64_t to, unsigned char value, std::size_t bytes) {
  if (bytes != 0) enqueue([=] { std::memset(reinterpret_cast<void*>(to), value, bytes); });
}

void EmulatedEngineDevice::launch(std::string_view name, const LaunchConfig& l, KernelArgs& args) {
  if (std::find(kernels_.begin(), kernels_.end(), name) == kernels_.end())  // at the launch, in a capture too
    throw std::logic_error("cuda engine: no kernel " + std::string(name) + " in the module");
  enqueue_launch(module_, name, l, args);
}

void EmulatedEngineDevice::launch_harness(std::string_view name, const LaunchConfig& l, KernelArgs& args) {
  if (name != kPickPart && name != kPickRow)
    throw std::logic_error("cuda engine: no kernel " + std::string(name) + " in the harness's module");
  enqueue_launch(harness_, name, l, args);
}

void EmulatedEngineDevice::enqueue_launch(EmulatedModule& module, std::string_view name, const LaunchConfig& l,
                                          KernelArgs& args) {
  enqueue([this, &module, kernel = std::string(name), l, frozen = args]() mutable {
    ++launches_;
    module.launch(kernel, l, frozen);
  });
}

int EmulatedEngineDevice::mark() {
  const auto [number, fresh] = numbers_.next(recording_ != nullptr);
  if (fresh) marks_.emplace_back();
  enqueue([this, n = static_cast<std::size_t>(number)] { marks_[n] = std::chrono::steady_clock::now(); });
  return number;
}

double EmulatedEngineDevice::elapsed_ms(int from, int to) {
  return std::chrono::duration<double, std::milli>(marks_.at(static_cast<std::size_t>(to)) -
                                                   marks_.at(static_cast<std::size_t>(from)))
      .count();
}

int EmulatedEngineDevice::capture(const std::function<void()>& enqueue_all) {
  refuse_in_capture(recording_ != nullptr, "a capture");
  std::vector<Operation> graph;
  recording_ = &graph;
  try {
    enqueue_all();
  } catch (...) {
    recording_ = nullptr;
    throw;
  }
  recording_ = nullptr;
  graphs_.push_back(std::move(graph));
  return static_cast<int>(graphs_.size()) - 1;
}

void EmulatedEngineDevice::replay(int graph) {
  refuse_in_capture(recording_ != nullptr, "a replay");
  ++replays_;
  for (Operation& op : graphs_.at(static_cast<std::size_t>(graph))) op();
}

DeviceFactory emulated_devices(std::filesystem::path work_dir) {
  return [work_dir](const ModuleImage& image) -> std::unique_ptr<EngineDevice> {
    return std::make_unique<EmulatedEngineDevice>(image, work_dir);
  };
}

}  // namespace kforge::kernels::cuda::engine
