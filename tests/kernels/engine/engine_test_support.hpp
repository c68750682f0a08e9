#pragma once
// Shared by the engine backend tests: tiny models (2 layers, hidden 64, vocab 256), a small workload, short
// timing, and a genome of the engine template.
#include <string>

#include "engine/engine_template.hpp"
#include "host_gemm_test_support.hpp"
#include "kforge/jobs/manifest.hpp"

namespace kforge::kernels::engine::testing {

using kernels::testing::context;
using kernels::testing::ScratchDir;

inline jobs::ModelSpec tiny_model(const std::string& architecture) {
  jobs::ModelSpec m;
  m.architecture = architecture;
  m.layers = 2;
  m.hidden = 64;
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = 16;
  m.mlp_hidden = 128;
  m.vocab = 256;
  m.attention_every = 2;  // kimi-linear: layer 0 KDA, layer 1 full attention
  m.weight_seed = 11;
  return m;
}

inline jobs::EvalSettings tiny_engine_settings(const std::string& architecture) {
  jobs::EvalSettings s;
  s.engine.model = tiny_model(architecture);
  jobs::WorkloadSpec& w = s.engine.workload;
  w.seed = 5;
  w.requests = 4;
  w.prompt_min = 4;
  w.prompt_max = 20;
  w.output_min = 2;
  w.output_max = 6;
  w.concurrency = 2;
  s.warmup = 0;
  s.min_repeats = 1;
  s.max_repeats = 2;
  s.time_cap_s = 0.1;
  s.compile_timeout_s = 120;
  s.compile_flags = "-O0";  // the tests judge behaviour, not speed: compile fast
  s.baselines = {"reference"};
  return s;
}

inline jobs::Genome engine_genome() {
  jobs::Genome g = kernels::testing::GemmGenome{}.genome();
  for (const char* flag : {"fuse_qkv", "fuse_gate_up", "fold_norm", "residual_epilogue", "prepack"})
    g.params[flag] = std::int64_t{0};
  g.params["kv_block"] = std::int64_t{16};
  g.params["threads"] = std::int64_t{1};
  g.params["max_batch"] = std::int64_t{2};
  g.params["prefill_chunk"] = std::int64_t{16};
  g.params["schedule"] = std::string("decode_first");
  return g;
}

inline jobs::Candidate engine_candidate(const jobs::Genome& genome, std::string source = {}) {
  jobs::Candidate c = kernels::testing::gemm_candidate(genome, std::move(source));
  c.family = "engine";
  return c;
}

// The honest engine with its entry point renamed, then `body` as the new entry point's body. The body sees
// `args`, `buffers` and may call kforge_honest_engine(args, buffers): a hostile engine that changes one thing.
inline std::string wrapped_engine(const std::string& globals, const std::string& body) {
  const std::string honest = render_engine_source(engine_params_from_genome(engine_genome()));
  return "#define kforge_engine kforge_honest_engine\n" + honest +
         "\n#undef kforge_engine\n#include <cstdint>\n#include <cstdio>\n#include <cstring>\n#include <map>\n"
         "#include <set>\n#include <utility>\n#include <vector>\n" +
         globals + "\nextern \"C\" void kforge_engine(const int64_t* args, void* const* buffers) {\n" + body + "\n}\n";
}

}  // namespace kforge::kernels::engine::testing
