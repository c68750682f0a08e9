#pragma once
// The engine family's C++ source template for the host backend: a whole fp32 inference engine for both
// architectures (docs/engines.md), exporting kforge_engine (engine_abi.hpp). Every projection runs on the gemm
// family's own kernel rendered from the genome's gemm parameters; the engine options choose real code paths.
#include <string>
#include <vector>

#include "gemm/gemm_template.hpp"
#include "kda/kda_template.hpp"
#include "kforge/engine/weight_precision.hpp"
#include "kforge/jobs/genome.hpp"

namespace kforge::kernels::engine {

struct EngineTemplateParams {
  host::GemmTemplateParams gemm;   // MC NC KC MR NR VEC UNROLL PACK LOOP_ORDER, as the gemm family's
  bool fuse_qkv = false;           // q, k, v projections in one GEMM over concatenated weights
  bool fuse_gate_up = false;       // gate and up in one GEMM
  bool fold_norm = false;          // RMSNorm's gamma folded into the next GEMM's weights (fp32 weights only: folding
                                   // would round gamma x W to another precision); 1/rms scales its rows
  bool residual_epilogue = false;  // residual add in the o_proj / down_proj output pass
  bool prepack = false;            // weights transposed once at init into the K x N layout the GEMM reads
  int kv_block = 0;                // 0 = contiguous KV per slot; 16, 32, 64 = paged blocks from a shared pool
  int threads = 1;                 // threads inside the engine: 1, 2, 4, 8, 16, or 0 = one per CPU it may use
  // How the matrices are stored (optional in a genome, fp32 when left out; docs/engines.md "Precisions"); the
  // arithmetic stays fp32. bf16 and int8 weights are always prepacked.
  WeightPrecision weights = WeightPrecision::fp32;
  // Bytes ahead at which the prepacked projections ask for each weight panel's next lines (0: the hardware
  // prefetcher alone, which stops at every 4 KB page of a panel's stream). Optional in a genome, 0 when left out.
  int prefetch = 0;
  // The KDA layers' prefill: KDA_CHUNK 0 = the token-by-token recurrence; 16, 32, 64 = the kda family's chunked
  // kernel rendered with KDA_CHUNK, KDA_DV_TILE, KDA_UNROLL, KDA_VEC (engine_kda_text.cpp). Optional in a genome:
  // these are the values a genome without them gets (family_schema.cpp's defaults, kept equal by a test).
  host::KdaTemplateParams kda{.CHUNK = 0, .DV_TILE = 64, .UNROLL = 2, .VEC = 8};
  // Harness-side batching policy (the serving loop reads them; the rendered engine does not depend on them).
  int max_batch = 1;                      // 1, 2, 4, 8, 16
  int prefill_chunk = 16;                 // 16, 32, 64, 128, 256
  std::string schedule = "decode_first";  // "decode_first" or "prefill_first"
};

// The engine genome's parameter names, in the order of the docs.
const std::vector<std::string>& engine_param_names();

// The names a genome may leave out (KDA_CHUNK, KDA_DV_TILE, KDA_UNROLL, KDA_VEC, weights, prefetch):
// EngineTemplateParams' defaults.
const std::vector<std::string>& engine_optional_param_names();

// The precision a genome declares (its "weights", fp32 when absent), also for an agent's engine whose genome is not
// the template's; throws std::invalid_argument for a value other than fp32, bf16, int8.
WeightPrecision weights_from_genome(const jobs::Genome& genome);

// Throws std::invalid_argument naming every missing or unknown parameter, or the first bad value.
EngineTemplateParams engine_params_from_genome(const jobs::Genome& genome);

// C++17 source exporting extern "C" kforge_engine. Throws std::invalid_argument for bad gemm parameters.
std::string render_engine_source(const EngineTemplateParams& p);

}  // namespace kforge::kernels::engine
