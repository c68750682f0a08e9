// The cuda engine's genome (docs/engines.md, "The cuda engine"): cuda_engine_space() is read from here.
#include "kforge/kernels/family_schema_builders.hpp"

namespace kforge::kernels::schema {

// The module's kernel parameters, the launch plan's choices and the batching policy.
FamilySchema cuda_engine() {
  FamilySchema s = pair_of("cuda", "engine");
  s.parameters = {int_choice("BM", {16, 32, 64, 128}),
                  int_choice("BN", {32, 64, 128}),
                  int_choice("BK", {8, 16, 32}),
                  int_choice("TM", {1, 2, 4, 8}),
                  int_choice("TN", {1, 2, 4, 8}),
                  int_choice("SPLIT_K", {1, 2, 4, 8}),
                  int_choice("ATTN_THREADS", {32, 64, 128, 256}),
                  int_choice("ATTN_TILE", {32, 64, 128}),
                  int_choice("NORM_THREADS", {32, 64, 128, 256}),
                  int_choice("kda_state_regs", {0, 1})};
  // kf_gemv for the projections of decode steps (at most GEMV_ROWS rows; 0: never), GEMV_WARPS warps per block:
  // optional, so that genomes written before them keep their meaning (0 and 4 when left out).
  ParameterSchema gemv_rows = int_choice("GEMV_ROWS", {0, 1, 2, 4, 8});
  gemv_rows.default_value = 0;
  s.parameters.push_back(std::move(gemv_rows));
  // kf_attention_group (one block per token and KV head, K and V read once for the group's query heads): optional,
  // 0 when left out.
  ParameterSchema attn_group = int_choice("ATTN_GROUP", {0, 1});
  attn_group.default_value = 0;
  s.parameters.push_back(std::move(attn_group));
  // kf_attention_tiles for the steps that feed prompts (keys and values read once per tile of tokens): optional.
  ParameterSchema attn_qtile = int_choice("ATTN_QTILE", {0, 1});
  attn_qtile.default_value = 0;
  s.parameters.push_back(std::move(attn_qtile));
  ParameterSchema gemv_warps = int_choice("GEMV_WARPS", {2, 4, 8});
  gemv_warps.default_value = 4;
  s.parameters.push_back(std::move(gemv_warps));
  ParameterSchema gemv_unroll = int_choice("GEMV_UNROLL", {1, 2, 4});  // weight vectors in flight per lane
  gemv_unroll.default_value = 1;
  s.parameters.push_back(std::move(gemv_unroll));
  ParameterSchema gemv_norm = int_choice("GEMV_NORM", {0, 1});  // the RMSNorm fused into kf_gemv
  gemv_norm.default_value = 0;
  s.parameters.push_back(std::move(gemv_norm));
  ParameterSchema gemv_silu = int_choice("GEMV_SILU", {0, 1});  // SiLU(gate) * up as the gate and up kf_gemv's output
  gemv_silu.default_value = 0;
  s.parameters.push_back(std::move(gemv_silu));
  ParameterSchema gemm_tc = int_choice("GEMM_TC", {0, 1});  // bf16 weights: kf_gemm_tc on tensor cores
  gemm_tc.default_value = 0;
  s.parameters.push_back(std::move(gemm_tc));
  for (const char* flag : {"fuse_qkv", "fuse_gate_up", "fold_norm", "residual_epilogue", "prepack"})
    s.parameters.push_back(int_choice(flag, {0, 1}));
  s.parameters.push_back(int_choice("kv_block", {0, 16, 32, 64}));
  // Decode steps captured once per batch size as CUDA graphs and replayed: optional, 0 when left out.
  ParameterSchema graphs = int_choice("decode_graphs", {0, 1});
  graphs.default_value = 0;
  s.parameters.push_back(std::move(graphs));
  s.parameters.push_back(int_choice("max_batch", {1, 2, 4, 8, 16}));
  s.parameters.push_back(int_choice("prefill_chunk", {16, 32, 64, 128, 256}));
  s.parameters.push_back(string_choice("schedule", {"decode_first", "prefill_first"}));
  // The weights' precision (docs/engines.md, "Precisions", as the host engine's): optional, fp32 when left out.
  ParameterSchema weights = string_choice("weights", {"fp32", "bf16", "int8", "fp8"});
  weights.default_string = "fp32";
  s.parameters.push_back(std::move(weights));
  // What the engine declares of its activations (docs/engines.md, "Activations"): optional, fp32 when left out; bf16
  // is held to the activation contract's tolerance.
  ParameterSchema activations = string_choice("activations", {"fp32", "bf16"});
  activations.default_string = "fp32";
  s.parameters.push_back(std::move(activations));
  s.baselines = {"reference", "cublas", "cublas_bf16"};
  s.targets = cuda_targets();
  return s;
}

}  // namespace kforge::kernels::schema
