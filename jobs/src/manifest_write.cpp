// Task manifest -> YAML. Sources go in literal blocks so an admin can read the exact code a task evaluates.
#include <yaml-cpp/yaml.h>

#include <stdexcept>
#include <string_view>

#include "detail/durable_file.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/utf8.hpp"

namespace kforge::jobs {
namespace {

// A YAML literal block ("|", clip chomping) reproduces a text exactly only when the text ends in exactly one
// newline, its first line is not indented (the block's indentation is taken from it), no line is blank but
// for spaces, and it holds only printable ASCII, tabs and newlines. Anything else is written double-quoted.
bool literal_block_round_trips(const std::string& text) {
  if (text.size() < 2 || text.back() != '\n' || text[text.size() - 2] == '\n') return false;
  if (text.front() == ' ' || text.front() == '\t' || text.front() == '\n') return false;
  std::size_t line_start = 0;
  bool line_only_blanks = true;
  for (std::size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c == '\n') {
      if (line_only_blanks && i > line_start) return false;
      line_start = i + 1;
      line_only_blanks = true;
      continue;
    }
    if (c != '\t' && (c < 0x20 || c > 0x7e)) return false;
    if (c != ' ' && c != '\t') line_only_blanks = false;
  }
  return true;
}

void emit_source(YAML::Emitter& out, const std::string& source) {
  if (literal_block_round_trips(source))
    out << YAML::Literal << source;
  else
    out << YAML::DoubleQuoted << source;
}

void emit_engine(YAML::Emitter& out, const EngineSpec& e) {
  const ModelSpec& m = e.model;
  out << YAML::BeginMap << YAML::Key << "model" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "architecture" << YAML::Value << m.architecture;
  for (const auto& [key, value] : {std::pair{"layers", m.layers},
                                   {"hidden", m.hidden},
                                   {"heads", m.heads},
                                   {"kv_heads", m.kv_heads},
                                   {"head_dim", m.head_dim},
                                   {"mlp_hidden", m.mlp_hidden},
                                   {"vocab", m.vocab},
                                   {"attention_every", m.attention_every}})
    out << YAML::Key << key << YAML::Value << value;
  out << YAML::Key << "tied_embeddings" << YAML::Value << m.tied_embeddings;
  out << YAML::Key << "rope_theta" << YAML::Value << m.rope_theta;
  out << YAML::Key << "norm_eps" << YAML::Value << m.norm_eps;
  out << YAML::Key << "weight_seed" << YAML::Value << m.weight_seed;
  out << YAML::Key << "weights_file" << YAML::Value << m.weights_file;
  out << YAML::Key << "path" << YAML::Value << m.path;
  out << YAML::Key << "qkv_bias" << YAML::Value << m.qkv_bias;
  out << YAML::Key << "qk_norm" << YAML::Value << m.qk_norm;
  if (m.rope_scaling_factor != 0.0) {  // only then: manifests of models without it stay as they were
    out << YAML::Key << "rope_scaling_factor" << YAML::Value << m.rope_scaling_factor;
    out << YAML::Key << "rope_low_freq_factor" << YAML::Value << m.rope_low_freq_factor;
    out << YAML::Key << "rope_high_freq_factor" << YAML::Value << m.rope_high_freq_factor;
    out << YAML::Key << "rope_original_context" << YAML::Value << m.rope_original_context;
  }
  out << YAML::EndMap;
  const WorkloadSpec& w = e.workload;
  out << YAML::Key << "workload" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "seed" << YAML::Value << w.seed;
  for (const auto& [key, value] : {std::pair{"requests", w.requests},
                                   {"prompt_min", w.prompt_min},
                                   {"prompt_max", w.prompt_max},
                                   {"output_min", w.output_min},
                                   {"output_max", w.output_max},
                                   {"concurrency", w.concurrency}})
    out << YAML::Key << key << YAML::Value << value;
  out << YAML::Key << "arrival_rate" << YAML::Value << w.arrival_rate;
  out << YAML::Key << "objective" << YAML::Value << w.objective;
  out << YAML::Key << "slo_p99_itl_ms" << YAML::Value << w.slo_p99_itl_ms;
  out << YAML::Key << "slo_p99_ttft_ms" << YAML::Value << w.slo_p99_ttft_ms;
  out << YAML::EndMap << YAML::EndMap;
}

void emit_settings(YAML::Emitter& out, const EvalSettings& s) {
  out << YAML::BeginMap;
  out << YAML::Key << "wall_timeout_s" << YAML::Value << s.wall_timeout_s;
  out << YAML::Key << "cpu_limit_s" << YAML::Value << s.cpu_limit_s;
  out << YAML::Key << "memory_limit_mb" << YAML::Value << s.memory_limit_mb;
  out << YAML::Key << "file_limit_mb" << YAML::Value << s.file_limit_mb;
  out << YAML::Key << "compile_timeout_s" << YAML::Value << s.compile_timeout_s;
  out << YAML::Key << "warmup" << YAML::Value << s.warmup;
  out << YAML::Key << "min_repeats" << YAML::Value << s.min_repeats;
  out << YAML::Key << "max_repeats" << YAML::Value << s.max_repeats;
  out << YAML::Key << "target_spread" << YAML::Value << s.target_spread;
  out << YAML::Key << "time_cap_s" << YAML::Value << s.time_cap_s;
  out << YAML::Key << "problem" << YAML::Value << YAML::Flow << YAML::BeginMap;
  for (const auto& [name, value] : s.problem) out << YAML::Key << name << YAML::Value << value;
  out << YAML::EndMap;
  out << YAML::Key << "baselines" << YAML::Value << YAML::Flow << s.baselines;
  out << YAML::Key << "compiler" << YAML::Value << s.compiler;
  out << YAML::Key << "compile_flags" << YAML::Value << s.compile_flags;
  out << YAML::Key << "compile_only" << YAML::Value << s.compile_only;
  out << YAML::Key << "replay_cache" << YAML::Value << s.replay_cache;
  out << YAML::Key << "max_spill_bytes" << YAML::Value << s.max_spill_bytes;
  out << YAML::Key << "validation_cases" << YAML::Value << YAML::BeginSeq;
  for (const auto& c : s.validation_cases) out << YAML::DoubleQuoted << c;
  out << YAML::EndSeq;
  if (!s.engine.empty()) {
    out << YAML::Key << "engine" << YAML::Value;
    emit_engine(out, s.engine);
  }
  out << YAML::EndMap;
}

void emit_candidate(YAML::Emitter& out, const Candidate& c) {
  out << YAML::BeginMap;
  out << YAML::Key << "id" << YAML::Value << c.id;
  out << YAML::Key << "family" << YAML::Value << c.family;
  out << YAML::Key << "backend" << YAML::Value << c.backend;
  out << YAML::Key << "genome" << YAML::Value << c.genome.to_text();
  out << YAML::Key << "compile_flags" << YAML::Value << c.compile_flags;
  out << YAML::Key << "parents" << YAML::Value << YAML::Flow << c.parents;
  out << YAML::Key << "op" << YAML::Value << c.op;
  out << YAML::Key << "generation" << YAML::Value << c.generation;
  out << YAML::Key << "island" << YAML::Value << c.island;
  out << YAML::Key << "source" << YAML::Value;
  emit_source(out, c.source);
  out << YAML::EndMap;
}

std::string manifest_yaml(const TaskManifest& m) {
  YAML::Emitter out;
  out.SetDoublePrecision(17);  // doubles read back bit-identical
  out << YAML::BeginMap;
  out << YAML::Key << "campaign" << YAML::Value << m.campaign;
  if (!m.campaign_id.empty()) out << YAML::Key << "campaign_id" << YAML::Value << m.campaign_id;
  out << YAML::Key << "generation" << YAML::Value << m.generation;
  out << YAML::Key << "island" << YAML::Value << m.island;
  out << YAML::Key << "task" << YAML::Value << m.task;
  out << YAML::Key << "target" << YAML::Value << m.target;
  out << YAML::Key << "family" << YAML::Value << m.family;
  out << YAML::Key << "backend" << YAML::Value << m.backend;
  out << YAML::Key << "seed" << YAML::Value << m.seed;
  out << YAML::Key << "shard_path" << YAML::Value << m.shard_path;
  if (m.confirm_round >= 0) out << YAML::Key << "confirm_round" << YAML::Value << m.confirm_round;
  out << YAML::Key << "settings" << YAML::Value;
  emit_settings(out, m.settings);
  out << YAML::Key << "candidates" << YAML::Value << YAML::BeginSeq;
  for (const auto& c : m.candidates) emit_candidate(out, c);
  out << YAML::EndSeq << YAML::EndMap;
  if (!out.good()) throw std::runtime_error("task manifest YAML emitter failed: " + out.GetLastError());
  return std::string("# kforge task manifest: the exact work of one array task (re-runs evaluate the same)\n") +
         out.c_str() + "\n";
}

// The first text field of `m` that is not valid UTF-8 ("" if none): written, it would read back altered (utf8.hpp).
std::string non_utf8_field(const TaskManifest& m) {
  std::string bad;
  const auto check = [&bad](const std::string& name, std::string_view value) {
    if (bad.empty() && !is_valid_utf8(value)) bad = name;
  };
  check("campaign", m.campaign);
  check("target", m.target);
  check("family", m.family);
  check("backend", m.backend);
  check("shard_path", m.shard_path);
  const EvalSettings& s = m.settings;
  check("settings.compiler", s.compiler);
  check("settings.compile_flags", s.compile_flags);
  check("settings.replay_cache", s.replay_cache);
  for (const auto& [name, value] : s.problem) check("settings.problem", name);
  for (const auto& b : s.baselines) check("settings.baselines", b);
  for (const auto& c : s.validation_cases) check("settings.validation_cases", c);
  for (std::size_t i = 0; i < m.candidates.size(); ++i) {
    const Candidate& c = m.candidates[i];
    const std::string at = "candidates[" + std::to_string(i) + "].";
    check(at + "id", c.id);
    check(at + "family", c.family);
    check(at + "backend", c.backend);
    check(at + "genome", c.genome.to_text());
    check(at + "compile_flags", c.compile_flags);
    check(at + "op", c.op);
    check(at + "source", c.source);
    for (const auto& parent : c.parents) check(at + "parents", parent);
  }
  return bad;
}

}  // namespace

void write_manifest(const std::filesystem::path& path, const TaskManifest& m) {
  // Refused rather than written altered: the task must evaluate exactly the candidates' sources.
  if (const std::string field = non_utf8_field(m); !field.empty())
    throw std::runtime_error(path.string() + ": cannot write task manifest: " + field +
                             " is not valid UTF-8 text, which YAML cannot hold unchanged");
  detail::write_text_atomically(path, manifest_yaml(m));
}

std::filesystem::path resolve_shard_path(const std::filesystem::path& manifest_path, const TaskManifest& m) {
  std::filesystem::path shard(m.shard_path);
  if (shard.is_absolute()) return shard;
  return manifest_path.parent_path() / shard;
}

}  // namespace kforge::jobs
