// make_backend: the one place that knows which (backend, family) pairs exist.
#include <stdexcept>
#include <string>

#include "engine/host_engine_backend.hpp"
#include "host/host_gemm_backend.hpp"
#include "host/host_kda_backend.hpp"
#include "kforge/kernels/backend.hpp"
#include "replay/replay_backend.hpp"
#ifdef KFORGE_HAVE_CUDA
#include "cuda_engine_backend.hpp"
#include "kforge/kernels/cuda/cuda_backend.hpp"
#endif

#ifdef KFORGE_HAVE_CUDA
#define KFORGE_CUDA_PAIRS ", cuda/gemm, cuda/kda, cuda/rmsnorm, cuda/engine"
#else
#define KFORGE_CUDA_PAIRS ""
#endif

namespace kforge::kernels {

std::unique_ptr<Backend> make_backend(std::string_view backend, std::string_view family) {
  if (backend == "host" && family == "gemm") return std::make_unique<host::HostGemmBackend>();
  if (backend == "host" && family == "kda") return std::make_unique<host::HostKdaBackend>();
  if (backend == "host" && family == "engine") return std::make_unique<engine::HostEngineBackend>();
  // replay serves any family: the measured space (settings.replay_cache) defines what a configuration is.
  if (backend == "replay") return std::make_unique<replay::ReplayBackend>(std::string(family));
  const std::string unknown =
      "no kernel backend for " + std::string(backend) + "/" + std::string(family) +
      " (known backend/family pairs: host/gemm, host/kda, host/engine, replay/any" KFORGE_CUDA_PAIRS ")";
#ifdef KFORGE_HAVE_CUDA
  if (backend == "cuda" && family == "engine") return std::make_unique<cuda::engine::CudaEngineBackend>();
  if (backend == "cuda") {
    try {
      return cuda::make_cuda_backend(family);
    } catch (const std::invalid_argument&) {
      throw std::invalid_argument(unknown);
    }
  }
#endif
  throw std::invalid_argument(unknown);
}

}  // namespace kforge::kernels
