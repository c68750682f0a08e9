#pragma once
// The genome of a cuda engine candidate (docs/engines.md, "The cuda engine"): how the engine's kernels are
// built (the fp32 GEMM's tiles and split-K, attention and norm block sizes, the KDA state in registers or in
// global memory), how the harness's launch plan uses them (fusions, folded norms, residual epilogue, prepacked
// weights, paged KV cache), and the harness-side batching policy (the same keys as the host engine).
#include <optional>
#include <string>

#include "family.hpp"
#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/weight_precision.hpp"
#include "kforge/jobs/genome.hpp"

namespace kforge::kernels::cuda::engine {

struct CudaEngineParams {
  // The projections' fp32 GEMM (kf_gemm): a BM x BN tile of C per block, BK-deep slices of A and W through shared
  // memory, TM x TN outputs per thread, K split over SPLIT_K blocks that add into C atomically.
  int BM = 32, BN = 64, BK = 16, TM = 2, TN = 4, SPLIT_K = 1;
  int ATTN_THREADS = 128;   // threads per (token, head) of kf_attention
  int ATTN_TILE = 64;       // cache positions scored per pass of the online softmax
  bool ATTN_GROUP = false;  // kf_attention_group: a block per (token, KV head) for all its query heads
  bool ATTN_QTILE = false;  // kf_attention_tiles on steps that feed prompts: a block per tile of tokens and KV head
  int NORM_THREADS = 128;   // threads per row of kf_rmsnorm, kf_embed, kf_silu_mul
  // kf_gemv: projections of at most GEMV_ROWS rows (decode steps) as one warp per output streaming its weight row,
  // GEMV_WARPS warps per block; 0 = every projection through kf_gemm. Only for weights as stored (not prepacked).
  // GEMV_UNROLL: 16-byte weight vectors each lane loads before it uses the first (memory-level parallelism).
  int GEMV_ROWS = 0, GEMV_WARPS = 4, GEMV_UNROLL = 1;
  // GEMV_NORM: on the steps kf_gemv serves, the RMSNorm before a projection is kf_gemv's own (no kf_rmsnorm launch).
  bool GEMV_NORM = false;
  // GEMV_SILU: on the steps kf_gemv serves, the MLP's SiLU(gate) * up is the fused gate and up projection's own output
  // (no kf_silu_mul launch); with fuse_gate_up only.
  bool GEMV_SILU = false;
  // GEMM_TC: with bf16 weights, the projections kf_gemv does not serve run on tensor cores (kf_gemm_tc), each fp32
  // activation split exactly into three bf16 parts.
  bool GEMM_TC = false;
  bool kda_state_regs = false;  // KDA: each thread's state column in registers for a whole sequence
  bool fuse_qkv = true, fuse_gate_up = true, fold_norm = false, residual_epilogue = true, prepack = false;
  int kv_block = 0;  // 0 = one contiguous KV region per slot; 16, 32, 64 = paged blocks from a shared pool
  // Decode steps (one token per sequence) captured as a CUDA graph on the first step of each batch size and replayed
  // by the later ones: one launch per step where there were about ten per layer.
  bool decode_graphs = false;
  // How the projections' matrices are stored and read: fp32, bf16 (half the bytes), or int8 or fp8 (E4M3) with a
  // scale per output (a quarter); the harness rounds the model to it for the engine and the reference alike, and the
  // GEMMs widen each weight to fp32 as they load it (int8, fp8: the output's scale applied once to its sum).
  kernels::engine::WeightPrecision weights = kernels::engine::WeightPrecision::fp32;
  // What the engine declares of its activations (docs/engines.md, "Activations"): fp32, held to "Correctness"'s
  // 1e-4, or bf16, held to the activation contract's tolerance; with bf16, kf_gemm_tc multiplies each activation
  // as one bf16 operand (one tensor-core product per weight instead of three).
  kernels::engine::ActivationPrecision activations = kernels::engine::ActivationPrecision::fp32;

  int gemm_threads() const { return (BM / TM) * (BN / TN); }
  bool gemv_for(int rows) const { return rows <= GEMV_ROWS && !prepack; }
  bool silu_in_gemv_for(int rows) const { return GEMV_SILU && fuse_gate_up && gemv_for(rows); }
  bool tensor_cores() const { return GEMM_TC && weights == kernels::engine::WeightPrecision::bf16 && !prepack; }
  bool tc_for(int rows) const { return tensor_cores() && !gemv_for(rows); }
  // kf_attention_group serves groups of at most 8 query heads per KV head (its GROUP_MAX).
  bool group_attention_for(std::int64_t heads, std::int64_t kv_heads) const {
    return ATTN_GROUP && kv_heads > 0 && heads / kv_heads <= 8;
  }
  // kf_attention_tiles serves steps of more tokens than sequences, groups of at most 16 query heads (QTILE_ROWS).
  bool tiled_attention_for(std::int64_t heads, std::int64_t kv_heads) const {
    return ATTN_QTILE && kv_heads > 0 && heads / kv_heads <= 16;
  }
};

// The integer parameters and their values (schedule, weights and activations are strings: decode_first or
// prefill_first; fp32, bf16, int8 or fp8, optional; fp32 or bf16, optional).
const ParamSpace& cuda_engine_space();
// Every parameter name of the genome: integers, weights, activations, then the batching keys.
const std::vector<std::string>& cuda_engine_param_names();
jobs::Genome default_cuda_engine_genome();

// Why the genome cannot be rendered (a missing, unknown or out-of-space value, a GEMM tile with fewer than 32 or
// more than 1024 threads), or nullopt.
std::optional<std::string> cuda_engine_invalid_reason(const jobs::Genome& g);

// Throws std::invalid_argument with cuda_engine_invalid_reason's text.
CudaEngineParams cuda_engine_params(const jobs::Genome& g);

}  // namespace kforge::kernels::cuda::engine
