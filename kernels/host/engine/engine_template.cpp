#include "engine/engine_template.hpp"

#include <algorithm>
#include <stdexcept>
#include <variant>

#include "engine/engine_template_text.hpp"

namespace kforge::kernels::engine {
namespace {

const std::vector<std::string> kGemmParams = {"MC", "NC", "KC", "MR", "NR", "VEC", "UNROLL", "PACK", "LOOP_ORDER"};
const std::vector<std::string> kKdaParams = {"CHUNK", "DV_TILE", "UNROLL", "VEC"};  // as KDA_CHUNK, ...

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

std::string values_text(const std::vector<std::int64_t>& allowed) {
  std::vector<std::string> words;
  for (auto v : allowed) words.push_back(std::to_string(v));
  return join(words);
}

int choice(const jobs::Genome& genome, const std::string& name, const std::vector<std::int64_t>& allowed) {
  const auto* value = std::get_if<std::int64_t>(&genome.params.at(name));
  if (value == nullptr) throw std::invalid_argument("engine host template: parameter " + name + " must be an integer");
  if (std::find(allowed.begin(), allowed.end(), *value) == allowed.end())
    throw std::invalid_argument("engine host template: parameter " + name + "=" + std::to_string(*value) +
                                " must be one of " + values_text(allowed));
  return static_cast<int>(*value);
}

// An integer in [lo, hi]; the parameter's value when the genome has it, `fallback` when it leaves it out.
int optional_in_range(const jobs::Genome& genome, const std::string& name, int fallback, int lo, int hi) {
  if (!genome.has(name)) return fallback;
  const auto* value = std::get_if<std::int64_t>(&genome.params.at(name));
  if (value == nullptr || *value < lo || *value > hi)
    throw std::invalid_argument("engine host template: parameter " + name + " must be an integer in [" +
                                std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<int>(*value);
}

// The KDA_* values the genome gives and the defaults for the others, within the kda family's rules (KDA_CHUNK may
// also be 0: the recurrence, no chunked kernel).
host::KdaTemplateParams kda_params(const jobs::Genome& genome, host::KdaTemplateParams p) {
  if (genome.has("KDA_CHUNK")) p.CHUNK = choice(genome, "KDA_CHUNK", {0, 16, 32, 64});
  if (genome.has("KDA_VEC")) p.VEC = choice(genome, "KDA_VEC", {1, 2, 4, 8, 16});
  p.DV_TILE = optional_in_range(genome, "KDA_DV_TILE", p.DV_TILE, 1, 1024);
  p.UNROLL = optional_in_range(genome, "KDA_UNROLL", p.UNROLL, 1, 16);
  return p;
}

// KDA_CHUNK > 0: the kda family's kernel rendered with the genome's KDA_* values, in namespace kda_kernel (its
// anonymous namespace renamed, its extern "C" entry left out): the engine's KDA prefill calls its key_side and
// value_tile chunk by chunk (engine_kda_text.cpp). KDA_CHUNK = 0: nothing.
std::string kda_kernel_source(const host::KdaTemplateParams& p) {
  if (p.CHUNK == 0) return "";
  std::string kda = host::render_kda_source(p);
  const std::string open = "\nnamespace {\n", close = "}  // namespace\n\nextern \"C\" void kforge_kda(";
  const auto at = kda.find(open);
  if (at == std::string::npos) throw std::logic_error("engine template: the kda source opens no namespace");
  kda.replace(at, open.size(), "\nnamespace kda_kernel {\n");
  const auto end = kda.find(close);
  if (end == std::string::npos) throw std::logic_error("engine template: the kda source has no kforge_kda entry");
  return kda.substr(0, end) + "}  // namespace kda_kernel\n\n";
}

}  // namespace

const std::vector<std::string>& engine_param_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all = kGemmParams;
    for (const char* n : {"fuse_qkv", "fuse_gate_up", "fold_norm", "residual_epilogue", "prepack", "kv_block",
                          "threads", "max_batch", "prefill_chunk", "schedule"})
      all.push_back(n);
    for (const auto& n : engine_optional_param_names()) all.push_back(n);
    return all;
  }();
  return names;
}

const std::vector<std::string>& engine_optional_param_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> all;
    for (const auto& n : kKdaParams) all.push_back("KDA_" + n);
    all.push_back("weights");
    all.push_back("prefetch");
    return all;
  }();
  return names;
}

WeightPrecision weights_from_genome(const jobs::Genome& genome) {
  if (!genome.has("weights")) return WeightPrecision::fp32;
  const auto* weights = std::get_if<std::string>(&genome.params.at("weights"));
  if (weights == nullptr)
    throw std::invalid_argument("engine host template: parameter weights must be \"fp32\", \"bf16\" or \"int8\"");
  try {
    return parse_weight_precision(*weights);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("engine host template: parameter ") + e.what());
  }
}

EngineTemplateParams engine_params_from_genome(const jobs::Genome& genome) {
  const auto& known = engine_param_names();
  const auto& optional = engine_optional_param_names();
  std::vector<std::string> missing, unknown;
  for (const auto& name : known)
    if (!genome.has(name) && std::find(optional.begin(), optional.end(), name) == optional.end())
      missing.push_back(name);
  for (const auto& [name, value] : genome.params)
    if (std::find(known.begin(), known.end(), name) == known.end()) unknown.push_back(name);
  std::string problems;
  if (!missing.empty()) problems += "missing parameter(s): " + join(missing);
  if (!unknown.empty())
    problems += (problems.empty() ? "" : "; ") + std::string("unknown parameter(s): ") + join(unknown);
  if (!problems.empty())
    throw std::invalid_argument("engine host template: " + problems + " (expected: " + join(known) + ")");

  EngineTemplateParams p;
  jobs::Genome gemm;
  for (const auto& name : kGemmParams) gemm.params[name] = genome.params.at(name);
  try {
    p.gemm = host::gemm_params_from_genome(gemm);
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(std::string("engine host template: ") + e.what());
  }
  p.fuse_qkv = choice(genome, "fuse_qkv", {0, 1}) == 1;
  p.fuse_gate_up = choice(genome, "fuse_gate_up", {0, 1}) == 1;
  p.fold_norm = choice(genome, "fold_norm", {0, 1}) == 1;
  p.residual_epilogue = choice(genome, "residual_epilogue", {0, 1}) == 1;
  p.prepack = choice(genome, "prepack", {0, 1}) == 1;
  p.kv_block = choice(genome, "kv_block", {0, 16, 32, 64});
  p.threads = choice(genome, "threads", {0, 1, 2, 4, 8, 16});
  p.max_batch = choice(genome, "max_batch", {1, 2, 4, 8, 16});
  p.prefill_chunk = choice(genome, "prefill_chunk", {16, 32, 64, 128, 256});
  const auto* schedule = std::get_if<std::string>(&genome.params.at("schedule"));
  if (schedule == nullptr || (*schedule != "decode_first" && *schedule != "prefill_first"))
    throw std::invalid_argument(
        "engine host template: parameter schedule must be \"decode_first\" or \"prefill_first\"");
  p.schedule = *schedule;
  p.kda = kda_params(genome, p.kda);
  p.weights = weights_from_genome(genome);
  if (p.weights == WeightPrecision::fp8)  // E4M3 decoding is the cuda engine's (docs/engines.md, "The cuda engine")
    throw std::invalid_argument(
        "engine host template: weights fp8 are served by the cuda engine only (fp32, bf16, int8)");
  if (genome.has("prefetch")) p.prefetch = choice(genome, "prefetch", {0, 256, 1024, 4096});
  p.fold_norm = p.fold_norm && p.weights == WeightPrecision::fp32;  // folding would round gamma x W
  return p;
}

std::string render_engine_source(const EngineTemplateParams& p) {
  // The gemm family's kernel, made internal to the engine: its entry point becomes a static function.
  std::string gemm = host::render_gemm_source(p.gemm);
  const std::string entry = "extern \"C\" void kforge_gemm(";
  const auto at = gemm.find(entry);
  if (at == std::string::npos)
    throw std::logic_error("engine template: the gemm source has no kforge_gemm entry point");
  gemm.replace(at, entry.size(), "static void gemm_kernel(");
  // With several threads (threads=0: as many as the CPUs) they run the kernel at once: its packing buffers become
  // per thread.
  if (p.threads != 1)
    for (auto pos = gemm.find("alignas(64) float packed_"); pos != std::string::npos;
         pos = gemm.find("alignas(64) float packed_", pos + 1))
      gemm.replace(pos, 11, "alignas(64) thread_local");
  return text::engine_prelude(p) + gemm + kda_kernel_source(p.kda) + text::engine_body(p);
}

}  // namespace kforge::kernels::engine
