// The parameter schemas of every (backend, family) pair make_backend() knows (family_schema.hpp). The numbers
// mirror the templates: host/gemm_template.cpp, host/kda_template.cpp, the problem readers gemm_problem.cpp and
// host/kda_problem.cpp, and cuda/families/*: the conformance tests named in the header keep them equal.
#include "kforge/kernels/family_schema.hpp"

#include <algorithm>
#include <utility>

namespace kforge::kernels {
namespace {

constexpr std::int64_t kGiB = std::int64_t{1} << 30;

ParameterSchema int_range(std::string name, std::int64_t min, std::int64_t max) {
  ParameterSchema p;
  p.name = std::move(name);
  p.min = min;
  p.max = max;
  return p;
}

ParameterSchema int_choice(std::string name, std::vector<std::int64_t> choices) {
  const auto [lo, hi] = std::minmax_element(choices.begin(), choices.end());
  ParameterSchema p = int_range(std::move(name), *lo, *hi);
  p.int_choices = std::move(choices);
  return p;
}

ParameterSchema string_choice(std::string name, std::vector<std::string> choices) {
  ParameterSchema p;
  p.name = std::move(name);
  p.type = ParameterSchema::Type::string;
  p.string_choices = std::move(choices);
  return p;
}

ProblemKeySchema key(std::string name, std::int64_t fallback, std::int64_t min, std::int64_t max,
                     std::int64_t multiple_of = 1) {
  ProblemKeySchema k;
  k.name = std::move(name);
  k.default_value = fallback;
  k.min = min;
  k.max = max;
  k.multiple_of = multiple_of;
  return k;
}

FamilySchema pair_of(std::string backend, std::string family) {
  FamilySchema s;
  s.backend = std::move(backend);
  s.family = std::move(family);
  return s;
}

TargetSchema target_of(std::string name, std::string note, std::int64_t device_memory_bytes) {
  TargetSchema t;
  t.name = std::move(name);
  t.note = std::move(note);
  t.device_memory_bytes = device_memory_bytes;
  return t;
}

double value(const ProblemSizes& p, const char* key) { return static_cast<double>(p.at(key)); }

std::vector<TargetSchema> cuda_targets() {
  return {target_of("hopper", "sm_90a", 80 * kGiB), target_of("blackwell", "sm_100a", 180 * kGiB)};
}

std::vector<std::string> gpu_target_names() {
  std::vector<std::string> names;
  for (const auto& t : cuda_targets()) names.push_back(t.name);
  return names;
}

FamilySchema host_gemm() {
  FamilySchema s = pair_of("host", "gemm");
  s.parameters = {
      int_range("MC", 1, 4096),   int_range("NC", 1, 8192),   int_range("KC", 1, 4096),
      int_range("MR", 1, 32),     int_range("NR", 1, 128),    int_choice("VEC", {1, 2, 4, 8, 16}),
      int_range("UNROLL", 1, 64), int_choice("PACK", {0, 1}), string_choice("LOOP_ORDER", {"jpi", "pji", "jip"})};
  s.problem = {key("M", 256, 1, 65536), key("N", 256, 1, 65536), key("K", 256, 1, 65536)};
  s.baselines = {"reference", "openblas"};
  s.refused_targets = gpu_target_names();
  s.memory = MemoryBudget::sandbox_limit;
  // A, B, C in fp32, and the double-precision reference with its error bound per element of C.
  s.problem_bytes = [](const ProblemSizes& p) {
    const double M = value(p, "M"), N = value(p, "N"), K = value(p, "K");
    return 4.0 * (M * K + K * N + M * N) + 16.0 * M * N;
  };
  return s;
}

FamilySchema host_kda() {
  FamilySchema s = pair_of("host", "kda");
  s.parameters = {int_choice("CHUNK", {16, 32, 64}), int_range("DV_TILE", 1, 1024), int_range("UNROLL", 1, 16),
                  int_choice("VEC", {1, 2, 4, 8, 16})};
  s.problem = {key("B", 1, 1, 4096), key("H", 4, 1, 4096), key("T", 256, 1, 1 << 20), key("D", 128, 1, 1024)};
  s.baselines = {"reference"};
  s.refused_targets = gpu_target_names();
  s.memory = MemoryBudget::sandbox_limit;
  // q, k, v, g, o and beta in fp32, plus one head's reference output and state in double.
  s.problem_bytes = [](const ProblemSizes& p) {
    const double rows = value(p, "B") * value(p, "H") * value(p, "T"), D = value(p, "D");
    return 4.0 * (5.0 * rows * D + rows) + 8.0 * (value(p, "T") * D + D * D);
  };
  s.problem_rule = [](const ProblemSizes& p) -> std::optional<std::string> {
    if (value(p, "B") * value(p, "H") * value(p, "T") * value(p, "D") > static_cast<double>(std::int64_t{1} << 31))
      return "B*H*T*D exceeds 2^31 elements per tensor";
    return std::nullopt;
  };
  return s;
}

// The engine family (docs/engines.md): the gemm family's parameters (the engine's projections run the gemm
// kernel rendered with them), the engine's build options, and the harness-side batching policy. No problem keys:
// the campaign's model and workload sections say what is served.
FamilySchema host_engine() {
  FamilySchema s = pair_of("host", "engine");
  s.parameters = host_gemm().parameters;
  for (const char* flag : {"fuse_qkv", "fuse_gate_up", "fold_norm", "residual_epilogue", "prepack"})
    s.parameters.push_back(int_choice(flag, {0, 1}));
  s.parameters.push_back(int_choice("kv_block", {0, 16, 32, 64}));
  s.parameters.push_back(int_choice("threads", {1, 2}));
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
  s.baselines = {"reference"};
  s.refused_targets = gpu_target_names();
  return s;
}

FamilySchema cuda_gemm() {
  FamilySchema s = pair_of("cuda", "gemm");
  s.parameters = {int_choice("BM", {64, 128, 256}), int_choice("BN", {64, 128, 256}), int_choice("BK", {32, 64}),
                  int_choice("WM", {32, 64}),       int_choice("WN", {32, 64, 128}),  int_choice("STAGES", {2, 3, 4}),
                  int_choice("GROUP_M", {1, 8})};
  s.problem = {key("M", 4096, 1, 1 << 20), key("N", 4096, 1, 1 << 20, 8), key("K", 4096, 1, 1 << 20, 8)};
  s.baselines = {"reference", "cublas"};
  s.targets = cuda_targets();
  s.memory = MemoryBudget::device_memory;
  s.problem_bytes = [](const ProblemSizes& p) {  // A, B in bf16, C in fp32 (GemmFamily::bytes)
    const double M = value(p, "M"), N = value(p, "N"), K = value(p, "K");
    return 2.0 * (M * K + K * N) + 4.0 * M * N;
  };
  return s;
}

// kda and kda_bf16 (KdaFamily, kernels/cuda/families/kda/): one parameter space and problem; in_bytes, the size of
// an element of q, k, v, beta and o (4 or 2), sets the traffic.
FamilySchema cuda_kda_of(const char* name, double in_bytes) {
  FamilySchema s = pair_of("cuda", name);
  s.parameters = {int_choice("CHUNK", {16, 32, 64}), int_choice("BV", {16, 32, 64, 128}),
                  int_choice("WARPS", {2, 4, 8, 16}), int_choice("STAGES", {1, 2, 3})};
  s.problem = {key("B", 1, 1, 65535), key("T", 8192, 1, std::int64_t{1} << 31), key("H", 32, 1, 65535),
               key("D", 128, 128, 128), key("varlen", 0, 0, 1)};
  s.baselines = {"reference"};
  s.targets = cuda_targets();
  s.memory = MemoryBudget::device_memory;
  s.problem_bytes = [in_bytes](const ProblemSizes& p) {  // KdaFamily::bytes
    const double rows = value(p, "B") * value(p, "T") * value(p, "H"), D = value(p, "D");
    return in_bytes * (4.0 * rows * D + rows) + 4.0 * rows * D + 4.0 * value(p, "B") * value(p, "H") * D * D;
  };
  s.problem_rule = [](const ProblemSizes& p) -> std::optional<std::string> {
    if (value(p, "B") * value(p, "T") * value(p, "H") * value(p, "D") > static_cast<double>(std::int64_t{1} << 31))
      return "B*T*H*D exceeds 2^31 elements per tensor";
    return std::nullopt;
  };
  return s;
}

FamilySchema cuda_rmsnorm() {
  FamilySchema s = pair_of("cuda", "rmsnorm");
  s.parameters = {int_choice("VEC", {1, 2, 4, 8}), int_choice("THREADS_PER_ROW", {32, 64, 128, 256, 512, 1024}),
                  int_choice("ROWS_PER_BLOCK", {1, 2, 4, 8})};
  s.problem = {key("rows", 8192, 1, 1 << 24), key("hidden", 7168, 1, 1 << 20, 8)};
  s.baselines = {"reference"};
  s.targets = cuda_targets();
  s.memory = MemoryBudget::device_memory;
  s.problem_bytes = [](const ProblemSizes& p) {  // RmsnormFamily::bytes
    return 2.0 * (2.0 * value(p, "rows") * value(p, "hidden") + value(p, "hidden"));
  };
  return s;
}

// The cuda engine (kernels/cuda/engine/cuda_engine_params.cpp; tests/kernels_cuda/compile/family_schema_test.cpp
// keeps the two equal): the module's kernel parameters, the launch plan's choices and the batching policy.
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
  for (const char* flag : {"fuse_qkv", "fuse_gate_up", "fold_norm", "residual_epilogue", "prepack"})
    s.parameters.push_back(int_choice(flag, {0, 1}));
  s.parameters.push_back(int_choice("kv_block", {0, 16, 32, 64}));
  s.parameters.push_back(int_choice("max_batch", {1, 2, 4, 8, 16}));
  s.parameters.push_back(int_choice("prefill_chunk", {16, 32, 64, 128, 256}));
  s.parameters.push_back(string_choice("schedule", {"decode_first", "prefill_first"}));
  s.baselines = {"reference", "cublas"};
  s.targets = cuda_targets();
  return s;
}

FamilySchema replay_any() {
  FamilySchema s = pair_of("replay", "*");
  s.parameters_from_cache = true;  // no problem keys, no baselines: every answer is a measured time
  return s;
}

std::string join_ints(const std::vector<std::int64_t>& v) {
  std::string out;
  for (auto x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

}  // namespace

std::string ParameterSchema::allowed() const {
  if (type == Type::string) {
    std::string out;
    for (const auto& s : string_choices) out += (out.empty() ? "'" : ", '") + s + "'";
    return "one of " + out;
  }
  const std::string left_out = default_value ? " (default " + std::to_string(*default_value) + ")" : "";
  if (!int_choices.empty()) return "one of the integers " + join_ints(int_choices) + left_out;
  return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]" + left_out;
}

std::string ProblemKeySchema::allowed() const {
  std::string out = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (multiple_of > 1) out += " and a multiple of " + std::to_string(multiple_of);
  return out + ", default " + std::to_string(default_value);
}

std::string FamilySchema::pair() const { return backend + "/" + (family == "*" ? "any" : family); }

const ParameterSchema* FamilySchema::parameter(std::string_view name) const {
  for (const auto& p : parameters)
    if (p.name == name) return &p;
  return nullptr;
}

const ProblemKeySchema* FamilySchema::problem_key(std::string_view name) const {
  for (const auto& k : problem)
    if (k.name == name) return &k;
  return nullptr;
}

const TargetSchema* FamilySchema::target(std::string_view name) const {
  for (const auto& t : targets)
    if (t.name == name) return &t;
  return nullptr;
}

ProblemSizes FamilySchema::problem_with_defaults(const ProblemSizes& given) const {
  ProblemSizes out = given;
  for (const auto& k : problem) out.emplace(k.name, k.default_value);
  return out;
}

const std::vector<FamilySchema>& family_schemas() {
  static const std::vector<FamilySchema> all = {
      host_gemm(),    host_kda(),    host_engine(), cuda_gemm(), cuda_kda_of("kda", 4), cuda_kda_of("kda_bf16", 2),
      cuda_rmsnorm(), cuda_engine(), replay_any()};
  return all;
}

const FamilySchema* find_family_schema(std::string_view backend, std::string_view family) {
  for (const auto& s : family_schemas())
    if (s.backend == backend && (s.family == family || s.family == "*")) return &s;
  return nullptr;
}

std::string known_family_pairs() {
  std::string out;
  for (const auto& s : family_schemas()) out += (out.empty() ? "" : ", ") + s.pair();
  return out;
}

std::string families_of(std::string_view backend) {
  std::string out;
  for (const auto& s : family_schemas())
    if (s.backend == backend) out += (out.empty() ? "" : ", ") + (s.family == "*" ? std::string("any") : s.family);
  return out;
}

}  // namespace kforge::kernels
