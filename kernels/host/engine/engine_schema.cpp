// The host engine's genome (family_schema.hpp, docs/engines.md "The genome").
#include "kforge/kernels/family_schema_builders.hpp"

#include <map>

namespace kforge::kernels::schema {

// The engine family (docs/engines.md): the gemm family's parameters (the engine's projections run the gemm
// kernel rendered with them), the engine's build options, and the harness-side batching policy. No problem keys:
// the campaign's model and workload sections say what is served.
FamilySchema host_engine() {
  FamilySchema s = pair_of("host", "engine");
  s.parameters = host_gemm().parameters;
  for (const char* flag : {"fuse_qkv", "fuse_gate_up", "fold_norm", "residual_epilogue", "prepack"})
    s.parameters.push_back(int_choice(flag, {0, 1}));
  s.parameters.push_back(int_choice("kv_block", {0, 16, 32, 64}));
  s.parameters.push_back(int_choice("threads", {0, 1, 2, 4, 8, 16}));
  s.parameters.push_back(int_choice("max_batch", {1, 2, 4, 8, 16}));
  s.parameters.push_back(int_choice("prefill_chunk", {16, 32, 64, 128, 256}));
  s.parameters.push_back(string_choice("schedule", {"decode_first", "prefill_first"}));
  // The kda family's parameters, for the KDA layers' prefill (engine/engine_kda_text.cpp): optional, as a llama
  // model has no KDA layer; KDA_CHUNK 0 (the default) keeps the token-by-token recurrence. The defaults are
  // EngineTemplateParams' (tests/kernels/family_schema_test.cpp keeps them equal).
  const std::map<std::string, std::int64_t> kda_defaults = {
      {"KDA_CHUNK", 0}, {"KDA_DV_TILE", 64}, {"KDA_UNROLL", 2}, {"KDA_VEC", 8}};
  for (ParameterSchema kda : host_kda().parameters) {
    kda.name = "KDA_" + kda.name;
    if (kda.name == "KDA_CHUNK") kda = int_choice("KDA_CHUNK", {0, 16, 32, 64});
    kda.default_value = kda_defaults.at(kda.name);
    s.parameters.push_back(std::move(kda));
  }
  // The weights' precision (docs/engines.md, "Precisions"): optional, fp32 when left out.
  ParameterSchema weights = string_choice("weights", {"fp32", "bf16", "int8"});
  weights.default_string = "fp32";
  s.parameters.push_back(std::move(weights));
  // How far ahead the projections prefetch each weight panel (engine_projection_text.cpp): optional, 0 when left
  // out.
  ParameterSchema prefetch = int_choice("prefetch", {0, 256, 1024, 4096});
  prefetch.default_value = 0;
  s.parameters.push_back(std::move(prefetch));
  s.baselines = {"reference"};
  s.refused_targets = gpu_target_names();
  return s;
}

}  // namespace kforge::kernels::schema
