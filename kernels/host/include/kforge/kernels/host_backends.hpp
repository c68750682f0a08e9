#pragma once
// The host backend's families (kernels/host/): gemm, kda and engine, each compiled by the system compiler and run in
// a confined candidate process (docs/isolation.md).
#include <memory>
#include <string_view>

#include "kforge/kernels/backend.hpp"

namespace kforge::kernels {

// The host backend of `family`, or nullptr when the host backend has no such family.
std::unique_ptr<Backend> make_host_backend(std::string_view family);

}  // namespace kforge::kernels
