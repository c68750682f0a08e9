#include "cuda_engine_params.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace kforge::kernels::cuda::engine {
namespace {

const std::vector<std::string> kBatching = {"max_batch", "prefill_chunk", "schedule"};

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

// The optional integer genes (the schema's default_value) and their values when a genome leaves them out.
const std::map<std::string, std::int64_t>& optional_defaults() {
  static const std::map<std::string, std::int64_t> defaults = [] {
    std::map<std::string, std::int64_t> out;
    for (const ParameterSchema& p : find_family_schema("cuda", "engine")->parameters)
      if (p.default_value) out[p.name] = *p.default_value;
    return out;
  }();
  return defaults;
}

}  // namespace

const ParamSpace& cuda_engine_space() {
  static const ParamSpace space = space_of(*find_family_schema("cuda", "engine"));  // cuda_engine_schema.cpp
  return space;
}

const std::vector<std::string>& cuda_engine_param_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const auto& [name, values] : cuda_engine_space())
      if (std::find(kBatching.begin(), kBatching.end(), name) == kBatching.end()) all.push_back(name);
    all.push_back("weights");
    all.push_back("activations");
    all.insert(all.end(), kBatching.begin(), kBatching.end());
    return all;
  }();
  return names;
}

jobs::Genome default_cuda_engine_genome() {
  const CudaEngineParams d;
  jobs::Genome g;
  for (const auto& [name, value] :
       std::vector<std::pair<std::string, std::int64_t>>{{"BM", d.BM},
                                                         {"BN", d.BN},
                                                         {"BK", d.BK},
                                                         {"TM", d.TM},
                                                         {"TN", d.TN},
                                                         {"SPLIT_K", d.SPLIT_K},
                                                         {"ATTN_THREADS", d.ATTN_THREADS},
                                                         {"ATTN_TILE", d.ATTN_TILE},
                                                         {"NORM_THREADS", d.NORM_THREADS},
                                                         {"kda_state_regs", d.kda_state_regs},
                                                         {"fuse_qkv", d.fuse_qkv},
                                                         {"fuse_gate_up", d.fuse_gate_up},
                                                         {"fold_norm", d.fold_norm},
                                                         {"residual_epilogue", d.residual_epilogue},
                                                         {"prepack", d.prepack},
                                                         {"kv_block", d.kv_block},
                                                         {"max_batch", 16},
                                                         {"prefill_chunk", 256}})
    g.params[name] = value;
  g.params["schedule"] = std::string("decode_first");
  return g;
}

std::optional<std::string> cuda_engine_invalid_reason(const jobs::Genome& g) {
  std::vector<std::string> unknown;
  const auto& known = cuda_engine_param_names();
  for (const auto& [name, value] : g.params)
    if (std::find(known.begin(), known.end(), name) == known.end()) unknown.push_back(name);
  if (!unknown.empty())
    return "unknown parameter(s) " + join(unknown) + " for the cuda engine (expected: " + join(known) + ")";
  ParamSpace required = cuda_engine_space();
  for (const auto& [name, fallback] : optional_defaults())
    if (!g.has(name)) required.erase(name);
  if (auto why = outside_space(required, g)) return why;
  if (!g.has("schedule")) return "the genome lacks parameter schedule";
  const auto* schedule = std::get_if<std::string>(&g.params.at("schedule"));
  if (schedule == nullptr || (*schedule != "decode_first" && *schedule != "prefill_first"))
    return "parameter schedule must be decode_first or prefill_first";
  if (g.has("weights")) {  // optional: fp32 when left out
    const auto* weights = std::get_if<std::string>(&g.params.at("weights"));
    if (weights == nullptr || (*weights != "fp32" && *weights != "bf16" && *weights != "int8" && *weights != "fp8"))
      return "parameter weights must be fp32, bf16, int8 or fp8";
  }
  if (g.has("activations")) {  // optional: fp32 when left out
    const auto* activations = std::get_if<std::string>(&g.params.at("activations"));
    if (activations == nullptr || (*activations != "fp32" && *activations != "bf16"))
      return "parameter activations must be fp32 or bf16";
  }
  const std::int64_t threads = (g.get_int("BM") / g.get_int("TM")) * (g.get_int("BN") / g.get_int("TN"));
  if (threads < 32 || threads > 1024)
    return "the GEMM tile BM/TM x BN/TN = " + std::to_string(threads) +
           " threads per block, outside [32, 1024] (constraint (BM / TM) * (BN / TN) in [32, 1024])";
  return std::nullopt;
}

CudaEngineParams cuda_engine_params(const jobs::Genome& g) {
  if (auto why = cuda_engine_invalid_reason(g)) throw std::invalid_argument("cuda engine genome: " + *why);
  const auto i = [&](const char* name) { return static_cast<int>(g.get_int(name)); };
  CudaEngineParams p;
  p.BM = i("BM");
  p.BN = i("BN");
  p.BK = i("BK");
  p.TM = i("TM");
  p.TN = i("TN");
  p.SPLIT_K = i("SPLIT_K");
  p.ATTN_THREADS = i("ATTN_THREADS");
  p.ATTN_TILE = i("ATTN_TILE");
  p.NORM_THREADS = i("NORM_THREADS");
  const auto optional = [&](const char* name) {
    return g.has(name) ? i(name) : static_cast<int>(optional_defaults().at(name));
  };
  p.GEMV_ROWS = optional("GEMV_ROWS");
  p.GEMV_WARPS = optional("GEMV_WARPS");
  p.GEMV_UNROLL = optional("GEMV_UNROLL");
  p.GEMV_NORM = optional("GEMV_NORM") == 1;
  p.GEMV_SILU = optional("GEMV_SILU") == 1;
  p.GEMM_TC = optional("GEMM_TC") == 1;
  p.ATTN_GROUP = optional("ATTN_GROUP") == 1;
  p.ATTN_QTILE = optional("ATTN_QTILE") == 1;
  p.decode_graphs = optional("decode_graphs") == 1;
  p.kda_state_regs = i("kda_state_regs") == 1;
  p.fuse_qkv = i("fuse_qkv") == 1;
  p.fuse_gate_up = i("fuse_gate_up") == 1;
  p.fold_norm = i("fold_norm") == 1;
  p.residual_epilogue = i("residual_epilogue") == 1;
  p.prepack = i("prepack") == 1;
  p.kv_block = i("kv_block");
  if (g.has("weights"))
    p.weights = kernels::engine::parse_weight_precision(std::get<std::string>(g.params.at("weights")));
  if (g.has("activations"))
    p.activations = kernels::engine::parse_activation_precision(std::get<std::string>(g.params.at("activations")));
  // Folding gamma into rounded weights would round the product again: the norms stay unfolded (as the host engine).
  p.fold_norm = p.fold_norm && p.weights == kernels::engine::WeightPrecision::fp32;
  return p;
}

}  // namespace kforge::kernels::cuda::engine
