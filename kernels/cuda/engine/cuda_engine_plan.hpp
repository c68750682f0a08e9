#pragma once
// The cuda engine's launch plan (docs/engines.md, "The cuda engine"): the harness's side of a cuda engine. It
// owns the engine's device memory (weights laid out as the genome chooses: fused, gamma-folded, prepacked; KV
// caches contiguous or paged; KDA states; activations) and enqueues, for each step, the module's kernels in the
// model's order on one stream (a decode step, with `decode_graphs`, as one graph captured on the first step of
// its batch size and replayed by the later ones), then reads the logits back, or, when serving, reduces them
// on the device with the harness's own kernels (cuda_engine_pick.hpp) and reads back only what serve() keeps. The
// module's kernels only compute; which kernel runs on which buffers, and what the step returns, is decided here.
#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "cuda_engine_launches.hpp"
#include "cuda_engine_params.hpp"
#include "engine_device.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/engine/serving_loop.hpp"
#include "kforge/engine/serving_verdict.hpp"

namespace kforge::kernels::cuda::engine {

using kernels::engine::SeqDesc;
using kernels::engine::StepOutcome;

// One projection: C[m][n] (row stride ldc) = sum_k A[m][k] W[n][k] * (row_scale ? row_scale[m] : 1), written or
// added to C. W is [n][k], or [k][n] when the plan prepacks.
struct GemmCall {
  std::uint64_t a = 0, w = 0, c = 0, row_scale = 0;
  int lda = 0, ldc = 0, m = 0, n = 0, k = 0;
  bool accumulate = false;
  std::uint64_t col_scale = 0;  // int8 weights: each output column's scale (0: none)
  // GEMV_NORM: A holds the RMSNorm's raw input rows; kf_gemv normalises them itself (norm_gamma 0: gamma folded).
  bool norm = false;
  std::uint64_t norm_gamma = 0;
  float norm_eps = 0.f;
  // GEMV_SILU: W holds 2n rows (gate's, then up's); C[m][j] = SiLU(gate sum) * up sum, each scaled as its own output.
  bool silu = false;
};
// How projections run: the module's kf_gemm by default; the cuBLAS baseline engine supplies its own.
using GemmFn = std::function<void(const GemmCall&)>;

class CudaEnginePlan {
 public:
  // Lays the weights out on `device` as `params` chooses and allocates everything a step of up to
  // sizes.most_sequences sequences and sizes.most_tokens tokens needs. Throws std::invalid_argument for an
  // unusable model (check_model) or sizes.
  CudaEnginePlan(EngineDevice& device, const jobs::ModelSpec& model, const kernels::engine::Weights& weights,
                 const CudaEngineParams& params, const EngineSizes& sizes, GemmFn gemm = {});
  ~CudaEnginePlan();
  CudaEnginePlan(const CudaEnginePlan&) = delete;
  CudaEnginePlan& operator=(const CudaEnginePlan&) = delete;

  // kStep's semantics (engine_abi.hpp): the last token's logits of each sequence, the step's stream time (from the
  // first copy in to the logits back) and the time per operator class. The logits buffer is poisoned (NaN) before
  // every step, so a kernel that writes nothing leaves NaN. Asked for picked rows (RowWants), the harness's kf_pick
  // reduces them on the device and only what serve() keeps comes back (StepOutcome::picked; the clock runs to its
  // copy back). Throws std::invalid_argument for a step the engine was not sized for or that does not continue its
  // slot, or for more columns than a sampler draws (kSampledColumns).
  StepOutcome step(std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens,
                   const kernels::engine::RowWants& wants);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The plan as the serving loop's step function (the plan outlives it).
inline kernels::engine::StepFn step_function(CudaEnginePlan& plan) {
  return [&plan](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens,
                 const kernels::engine::RowWants& wants) { return plan.step(seqs, tokens, wants); };
}

}  // namespace kforge::kernels::cuda::engine
