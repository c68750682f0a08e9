#include "kforge/kernels/host_backends.hpp"

#include "engine/host_engine_backend.hpp"
#include "family/host_family_backend.hpp"
#include "gemm/gemm_host_family.hpp"
#include "kda/kda_host_family.hpp"

namespace kforge::kernels {

std::unique_ptr<Backend> make_host_backend(std::string_view family) {
  if (family == "gemm") return std::make_unique<host::HostFamilyBackend<host::GemmHostFamily>>();
  if (family == "kda") return std::make_unique<host::HostFamilyBackend<host::KdaHostFamily>>();
  if (family == "engine") return std::make_unique<engine::HostEngineBackend>();
  return nullptr;
}

}  // namespace kforge::kernels
