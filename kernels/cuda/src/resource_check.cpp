#include "resource_check.hpp"

namespace kforge::kernels::cuda {
namespace {

std::string n(std::int64_t v) { return std::to_string(v); }

}  // namespace

std::optional<std::string> launch_rejection(const LaunchConfig& launch, const ArchSpec& arch) {
  const std::int64_t threads = launch.threads_per_block();
  if (threads > arch.max_threads_per_block)
    return n(threads) + " threads per block exceed the " + arch.arch + " limit of " + n(arch.max_threads_per_block);
  if (launch.dynamic_shared_bytes > arch.max_shared_per_block)
    return n(launch.dynamic_shared_bytes) + " B of dynamic shared memory exceed the " + arch.arch + " limit of " +
           n(arch.max_shared_per_block) + " B per block";
  return std::nullopt;
}

std::optional<std::string> compiled_rejection(const KernelFigures& f, const LaunchConfig& launch, const ArchSpec& arch,
                                              const ResourceLimits& limits) {
  if (auto why = launch_rejection(launch, arch)) return why;
  if (f.spill_store_bytes > limits.max_spill_bytes)
    return n(f.spill_store_bytes) + " B of register spill stores per thread exceed the campaign's limit of " +
           n(limits.max_spill_bytes) + " B";
  if (f.static_shared_bytes > arch.max_static_shared)
    return n(f.static_shared_bytes) + " B of static shared memory exceed " + n(arch.max_static_shared) +
           " B (more needs dynamic shared memory with the opt-in attribute)";
  if (f.static_shared_bytes + launch.dynamic_shared_bytes > arch.max_shared_per_block)
    return n(f.static_shared_bytes) + " B static + " + n(launch.dynamic_shared_bytes) +
           " B dynamic shared memory exceed the " + arch.arch + " limit of " + n(arch.max_shared_per_block) +
           " B per block";
  if (f.registers > arch.max_registers_per_thread)
    return n(f.registers) + " registers per thread exceed " + n(arch.max_registers_per_thread);
  const std::int64_t unit = arch.register_alloc_unit;
  const std::int64_t allocated = (f.registers + unit - 1) / unit * unit;
  const std::int64_t warp_threads = (launch.threads_per_block() + 31) / 32 * 32;
  if (allocated * warp_threads > arch.registers_per_sm)
    return n(f.registers) + " registers per thread (allocated " + n(allocated) + ") x " + n(warp_threads) +
           " threads = " + n(allocated * warp_threads) + " exceed the " + n(arch.registers_per_sm) +
           " registers of one SM: the block cannot be resident";
  return std::nullopt;
}

std::string figures_text(const KernelFigures& f, const LaunchConfig& launch, const ArchSpec& arch) {
  return arch.arch + " " + f.entry + ": " + n(f.registers) + " registers/thread, " + n(f.static_shared_bytes) +
         " B static + " + n(launch.dynamic_shared_bytes) + " B dynamic shared memory, " + n(f.spill_store_bytes) +
         " B spill stores, " + n(f.spill_load_bytes) + " B spill loads, " + n(f.stack_frame_bytes) +
         " B stack frame; launch " + launch.text();
}

}  // namespace kforge::kernels::cuda
