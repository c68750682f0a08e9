#pragma once
// Checks of a compiled module as a whole, before any GPU time (ptxas's per-kernel figures are resource_check.hpp):
//
// - It must be a linked, loadable image (ELF type EXEC). Relocatable device code (-rdc / -dc in the compile
//   flags) is what device-side launches need (dynamic parallelism, cudaStreamFireAndForget, tail launches), and
//   kforge links no device runtime. Without -rdc NVRTC refuses such launches itself, so refusing relocatable
//   images closes the one way a kernel could start work on streams the harness does not own or time.
// - Its static device memory (__device__ variables; ptxas's "N bytes gmem") must fit the campaign's
//   memory_limit_mb. That is the device memory the candidate itself reserves; the harness's buffers do not count.
//   It stands in for the address-space limit, which a CUDA context cannot live under (mpi_eval/src/cascade.cpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kforge::kernels::cuda {

// Why `image` (the first bytes of a cubin are enough) cannot be loaded as it is, or nullopt.
std::optional<std::string> image_rejection(std::string_view image);

// The bytes of static device memory ptxas reports in `log` ("ptxas info : N bytes gmem", summed), or -1 when the
// log has no such line.
std::int64_t static_device_bytes(std::string_view ptxas_log);

// Why `gmem_bytes` of static device memory are over `limit_mb` (a limit <= 0 allows any), or nullopt.
std::optional<std::string> device_memory_rejection(std::int64_t gmem_bytes, std::int64_t limit_mb);

}  // namespace kforge::kernels::cuda
