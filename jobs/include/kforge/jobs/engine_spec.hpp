#pragma once
// What an engine campaign (campaign.family: engine) serves and how it is scored: the model (architecture, sizes,
// weights) and the serving workload (a trace generated from a seed, and the objective). Part of the task manifest's
// EvalSettings, so an array task evaluates exactly what the campaign file said (docs/campaign-schema.md, "model"
// and "workload"; docs/engines.md for the math every engine must reproduce).
#include <cstdint>
#include <string>

namespace kforge::jobs {

struct ModelSpec {
  // "llama": RMSNorm, RoPE, grouped-query attention with a KV cache, SwiGLU MLP.
  // "kimi-linear": Kimi Delta Attention layers and full-attention layers (attention_every), same MLP and norms.
  std::string architecture;  // "" = no model (a kernel family's campaign)
  std::int64_t layers = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;     // query heads
  std::int64_t kv_heads = 0;  // key/value heads (grouped-query attention): divides heads
  std::int64_t head_dim = 0;  // heads * head_dim need not equal hidden
  std::int64_t mlp_hidden = 0;
  std::int64_t vocab = 0;
  bool tied_embeddings = true;  // the LM head reuses the token embedding
  bool qkv_bias = false;        // llama only: the q, k and v projections add a bias (Qwen2)
  bool qk_norm = false;         // llama only: each head of q and k is RMS-normalised before RoPE (Qwen3)
  // kimi-linear: layer l (0-based) is full attention when (l + 1) % attention_every == 0, else KDA
  // (attention_every 4 = 3 KDA : 1 attention). Ignored for llama.
  std::int64_t attention_every = 4;
  double rope_theta = 10000.0;
  // Llama 3's RoPE scaling (config.json's rope_scaling of type llama3; docs/engines.md, "Model folders"): 0 = none.
  // Wavelengths shorter than original_context / high_freq_factor keep their frequency, those longer than
  // original_context / low_freq_factor are divided by the factor, and those between are interpolated
  // (kernels/engine/include/kforge/engine/rope.hpp).
  double rope_scaling_factor = 0.0;
  double rope_low_freq_factor = 1.0;
  double rope_high_freq_factor = 4.0;
  std::int64_t rope_original_context = 8192;
  double norm_eps = 1e-5;
  std::uint64_t weight_seed = 1;  // deterministic random weights when weights_file is ""
  std::string weights_file;       // safetensors (.safetensors) or HDF5 (.h5) file; absolute in a manifest
  // A Hugging Face model folder (config.json and safetensors, docs/engines.md "Model folders") the sizes above were
  // read from and the weights are loaded from; "" when none. Absolute in a manifest.
  std::string path;
  bool operator==(const ModelSpec&) const = default;
};

struct WorkloadSpec {
  std::uint64_t seed = 1;  // the trace (prompt tokens, lengths, arrivals) is generated from it
  std::int64_t requests = 0;
  std::int64_t prompt_min = 0, prompt_max = 0;  // prompt length, uniform in [min, max] tokens
  std::int64_t output_min = 0, output_max = 0;  // output length, uniform in [min, max] tokens
  std::int64_t concurrency = 1;                 // closed loop: requests in flight (when arrival_rate is 0)
  double arrival_rate = 0.0;                    // open loop: Poisson arrivals per second (> 0 replaces concurrency)
  std::string objective = "output_tokens_per_s";
  double slo_p99_itl_ms = 0.0;   // 0 = no SLO; else a candidate whose p99 inter-token latency exceeds it fails
  double slo_p99_ttft_ms = 0.0;  // 0 = no SLO; same for p99 time to first token
  bool operator==(const WorkloadSpec&) const = default;
};

struct EngineSpec {
  ModelSpec model;
  WorkloadSpec workload;
  bool empty() const { return model.architecture.empty(); }
  bool operator==(const EngineSpec&) const = default;
};

}  // namespace kforge::jobs
