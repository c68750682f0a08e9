#pragma once
// The cuda engine's weights as the launch plan uses them (cuda_engine_plan.hpp): laid out on the host from the
// model's flat weights as the genome chooses, then uploaded once. fuse_qkv / fuse_gate_up concatenate the rows of
// the projections that read the same input; fold_norm scales the columns of the projections after a norm by its
// gamma (the norm then only computes 1 / rms, applied as the GEMM's row scale); prepack stores every projection
// transposed ([in][out]) so the GEMM's tile loads run along the output dimension.
#include <cstdint>
#include <vector>

#include "cuda_engine_params.hpp"
#include "engine_device.hpp"
#include "kforge/engine/model_weights.hpp"

namespace kforge::kernels::cuda::engine {

// One projection on the device: n outputs x k inputs ([n][k], or [k][n] when prepacked), writing its outputs at
// `column` of the row the plan gives it.
struct DeviceMatrix {
  std::uint64_t address = 0;
  int n = 0, k = 0;
  int column = 0;
  std::uint64_t scales = 0;  // int8: one fp32 scale per output (weight = q * scale); 0 otherwise
};

struct DeviceLayer {
  bool attention = true;
  std::uint64_t in_gamma = 0, post_gamma = 0;  // 0 when folded into the next projections
  std::vector<DeviceMatrix> in_proj;           // attention: q, k, v (or one fused); KDA: q, k, v, f, b
  int in_width = 0;                            // columns of the in-projections' output row
  DeviceMatrix o;
  std::vector<DeviceMatrix> gate_up;  // gate then up at column F (or one fused)
  DeviceMatrix down;
};

struct DeviceWeights {
  std::uint64_t embed = 0;        // [vocab][hidden], as the model stores it (rows are gathered)
  std::uint64_t final_gamma = 0;  // 0 when folded into the head
  DeviceMatrix head;
  std::vector<DeviceLayer> layers;
};

DeviceWeights upload_weights(EngineDevice& device, const jobs::ModelSpec& model,
                             const kernels::engine::Weights& weights, const CudaEngineParams& params);

}  // namespace kforge::kernels::cuda::engine
