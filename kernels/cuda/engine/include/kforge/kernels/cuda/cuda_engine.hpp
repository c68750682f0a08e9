#pragma once
// The cuda backend of the engine family (kernels/cuda/engine/, docs/engines.md "The cuda engine").
#include <memory>

#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::cuda {

// A cuda engine backend whose run stage uses the node's GPU (the compile stage needs none).
std::unique_ptr<Backend> make_cuda_engine_backend();

}  // namespace kforge::kernels::cuda
