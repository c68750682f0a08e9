#include "cuda_engine_source.hpp"

#include "ptx_helpers.hpp"

namespace kforge::kernels::cuda::engine {
namespace {

std::string define(const char* name, std::int64_t value) {
  return "#define " + std::string(name) + " " + std::to_string(value) + "\n";
}

}  // namespace

std::string head_dim_option(std::int64_t head_dim) { return "-DKF_HEAD_DIM=" + std::to_string(head_dim); }

int kda_threads(std::int64_t head_dim) { return static_cast<int>((head_dim + 31) / 32 * 32); }

std::string render_cuda_engine_source(const CudaEngineParams& p) {
  std::string out =
      "// kforge cuda engine module, rendered from the genome (docs/engines.md, \"The cuda engine\").\n"
      "// The harness's launch plan: fuse_qkv=" +
      std::to_string(p.fuse_qkv) + " fuse_gate_up=" + std::to_string(p.fuse_gate_up) +
      " fold_norm=" + std::to_string(p.fold_norm) + " residual_epilogue=" + std::to_string(p.residual_epilogue) +
      "; it defines KF_HEAD_DIM, KF_PREPACK and KF_KV_BLOCK (layouts) on NVRTC's command line.\n";
  out += define("BM", p.BM) + define("BN", p.BN) + define("BK", p.BK) + define("TM", p.TM) + define("TN", p.TN) +
         define("SPLIT_K", p.SPLIT_K) + define("ATTN_THREADS", p.ATTN_THREADS) + define("ATTN_TILE", p.ATTN_TILE) +
         define("NORM_THREADS", p.NORM_THREADS) + define("KDA_STATE_REGS", p.kda_state_regs) +
         define("GEMV_ROWS", p.GEMV_ROWS) + define("GEMV_WARPS", p.GEMV_WARPS) + define("GEMV_UNROLL", p.GEMV_UNROLL) +
         define("GEMV_NORM", p.GEMV_NORM) + define("ATTN_QTILE", p.ATTN_QTILE) + define("GEMV_SILU", p.GEMV_SILU) +
         define("GEMM_TC", p.GEMM_TC) + define("KF_WEIGHTS_BF16", p.weights == kernels::engine::WeightPrecision::bf16) +
         define("KF_WEIGHTS_INT8", p.weights == kernels::engine::WeightPrecision::int8) +
         define("KF_WEIGHTS_FP8", p.weights == kernels::engine::WeightPrecision::fp8) +
         define("KF_ACT_BF16", p.activations == kernels::engine::ActivationPrecision::bf16);
  // mma_bf16 for the kernels on tensor cores: kf_gemm_tc, and kf_attention_tiles with bf16 activations.
  const bool mma = p.GEMM_TC || (p.ATTN_QTILE && p.activations == kernels::engine::ActivationPrecision::bf16);
  return out + text::engine_common() + text::engine_dense() + text::engine_gemv() + (mma ? ptx_helpers_text() : "") +
         text::engine_gemm_tc() + text::engine_mixers() + text::engine_attention_tiles();
}

}  // namespace kforge::kernels::cuda::engine
