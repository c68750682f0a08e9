// make_backend: the one place that knows which (backend, family) pairs exist.
#include <stdexcept>
#include <string>

#include "kforge/kernels/backend.hpp"
#include "kforge/kernels/host_backends.hpp"
#include "kforge/kernels/replay_backend.hpp"
#ifdef KFORGE_HAVE_CUDA
#include "kforge/kernels/cuda/cuda_backend.hpp"
#include "kforge/kernels/cuda/cuda_engine.hpp"
#endif

#ifdef KFORGE_HAVE_CUDA
#define KFORGE_CUDA_PAIRS ", cuda/gemm, cuda/kda, cuda/rmsnorm, cuda/engine"
#else
#define KFORGE_CUDA_PAIRS ""
#endif

namespace kforge::kernels {

std::unique_ptr<Backend> make_backend(std::string_view backend, std::string_view family) {
  if (backend == "host") {
    if (auto host = make_host_backend(family)) return host;
  }
  // replay serves any family: the measured space (settings.replay_cache) defines what a configuration is.
  if (backend == "replay") return std::make_unique<replay::ReplayBackend>(std::string(family));
  const std::string unknown =
      "no kernel backend for " + std::string(backend) + "/" + std::string(family) +
      " (known backend/family pairs: host/gemm, host/kda, host/engine, replay/any" KFORGE_CUDA_PAIRS ")";
#ifdef KFORGE_HAVE_CUDA
  if (backend == "cuda" && family == "engine") return cuda::make_cuda_engine_backend();
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
