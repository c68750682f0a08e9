// make_backend: the one place that knows which (backend, family) pairs exist.
#include <stdexcept>
#include <string>

#include "host/host_gemm_backend.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels {

std::unique_ptr<Backend> make_backend(std::string_view backend, std::string_view family) {
  if (backend == "host" && family == "gemm") return std::make_unique<host::HostGemmBackend>();
  throw std::invalid_argument("no kernel backend for " + std::string(backend) + "/" + std::string(family) +
                              " (known backend/family pairs: host/gemm)");
}

}  // namespace kforge::kernels
