#pragma once
// Shared by the engine model tests: small models, a rendered engine compiled with the system c++ and loaded in
// this process, and a serving script (prefill chunks, decodes and slot reuse in mixed batches).
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/engine_template.hpp"
#include "kforge/engine/engine_abi.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/engine/rope.hpp"

namespace kforge::kernels::engine::model_testing {

inline jobs::ModelSpec small_model(const std::string& architecture, bool tied = true, std::int64_t every = 2) {
  jobs::ModelSpec m;
  m.architecture = architecture;
  m.layers = 2;
  m.hidden = 64;
  m.heads = 4;
  m.kv_heads = 2;  // grouped-query attention
  m.head_dim = 16;
  m.mlp_hidden = 96;
  m.vocab = 256;
  m.tied_embeddings = tied;
  m.attention_every = every;
  m.weight_seed = 7;
  return m;
}

inline std::vector<std::int64_t> init_args(const jobs::ModelSpec& m, int slots, int context) {
  std::vector<std::int64_t> a(kInitArgs);
  a[0] = kInit;
  a[kArgArchitecture] = m.architecture == "kimi-linear" ? 1 : 0;
  a[kArgLayers] = m.layers;
  a[kArgHidden] = m.hidden;
  a[kArgHeads] = m.heads;
  a[kArgKvHeads] = m.kv_heads;
  a[kArgHeadDim] = m.head_dim;
  a[kArgMlpHidden] = m.mlp_hidden;
  a[kArgVocab] = m.vocab;
  a[kArgTiedEmbeddings] = m.tied_embeddings ? 1 : 0;
  a[kArgAttentionEvery] = m.attention_every;
  a[kArgMaxSlots] = slots;
  a[kArgMaxContext] = context;
  a[kArgQkvBias] = m.qkv_bias ? 1 : 0;
  a[kArgQkNorm] = m.qk_norm ? 1 : 0;
  return a;
}

// An engine behind the ABI: a rendered candidate (dlopen'ed, never closed: its worker thread lives on) or the
// reference's own entry point.
class AbiEngine {
 public:
  explicit AbiEngine(EngineFn fn) : fn_(fn) {}
  static AbiEngine compile(const std::string& source, const std::filesystem::path& dir) {
    std::filesystem::create_directories(dir);
    const auto cpp = dir / "engine.cpp", so = dir / "engine.so";
    std::ofstream(cpp) << source;
    // KFORGE_ENGINE_TEST_CXXFLAGS adds flags, e.g. -fsanitize=address,undefined for a sanitizer build of the test.
    const char* extra = std::getenv("KFORGE_ENGINE_TEST_CXXFLAGS");
    const std::string cmd = "c++ -std=c++17 -O1 -shared -fPIC -Wall -Wextra -Wno-psabi " +
                            std::string(extra ? extra : "") + " -o " + so.string() + " " + cpp.string() + " > " +
                            (dir / "compile.log").string() + " 2>&1";
    if (std::system(cmd.c_str()) != 0)
      throw std::runtime_error("engine did not compile: see " + (dir / "compile.log").string());
    void* handle = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr) throw std::runtime_error(dlerror());
    return AbiEngine(reinterpret_cast<EngineFn>(dlsym(handle, kEntryPoint)));
  }
  void init(const jobs::ModelSpec& m, const Weights& w, int slots, int context) {
    const auto args = init_args(m, slots, context);
    std::vector<double> constants{m.rope_theta, m.norm_eps};  // engine_abi.hpp: then RoPE's inverse frequencies
    const std::vector<double> inv_freq = rope_inverse_frequencies(m);
    constants.insert(constants.end(), inv_freq.begin(), inv_freq.end());
    void* buffers[2] = {const_cast<float*>(w.data.data()), constants.data()};
    fn_(args.data(), buffers);
    vocab_ = m.vocab;
  }
  std::vector<float> step(const std::vector<SeqDesc>& seqs, const std::vector<std::int32_t>& tokens) {
    std::vector<std::int64_t> desc;
    for (const auto& s : seqs) desc.insert(desc.end(), {s.slot, s.start_position, s.token_count});
    std::vector<float> logits(seqs.size() * static_cast<std::size_t>(vocab_));
    seconds.assign(kOperatorCount, -1.0);
    const std::int64_t args[kStepArgs] = {kStep, static_cast<std::int64_t>(seqs.size()),
                                          static_cast<std::int64_t>(tokens.size())};
    void* buffers[4] = {desc.data(), const_cast<std::int32_t*>(tokens.data()), logits.data(), seconds.data()};
    fn_(args, buffers);
    return logits;
  }
  std::vector<double> seconds;

 private:
  EngineFn fn_;
  std::int64_t vocab_ = 0;
};

struct ScriptStep {
  std::vector<SeqDesc> seqs;
  std::vector<std::int32_t> tokens;
};

// Three slots: two prompts prefilled in chunks while another decodes, decodes of all three in one batch, then
// slot 1 restarted with a new prompt (start_position 0) next to the others' decodes. Tokens are deterministic.
inline std::vector<ScriptStep> serving_script(std::int64_t vocab) {
  std::int32_t next = 3;
  auto toks = [&](std::int64_t n) {
    std::vector<std::int32_t> t;
    for (std::int64_t i = 0; i < n; ++i) t.push_back(static_cast<std::int32_t>((next = (next * 37 + 11) % vocab)));
    return t;
  };
  std::vector<ScriptStep> script;
  auto add = [&](std::vector<SeqDesc> seqs) {
    ScriptStep s{seqs, {}};
    for (const auto& d : seqs) {
      const auto t = toks(d.token_count);
      s.tokens.insert(s.tokens.end(), t.begin(), t.end());
    }
    script.push_back(s);
  };
  add({{0, 0, 16}, {1, 0, 9}});              // slot 0: first prefill chunk; slot 1: whole prompt
  add({{1, 9, 1}, {0, 16, 13}});             // slot 1 decodes while slot 0 prefills its second chunk
  add({{2, 0, 5}, {0, 29, 1}, {1, 10, 1}});  // a third prompt with two decodes
  for (int i = 0; i < 4; ++i) add({{0, 30 + i, 1}, {1, 11 + i, 1}, {2, 5 + i, 1}});
  add({{1, 0, 12}, {0, 34, 1}});  // slot 1 restarts: its old cache must be gone
  add({{1, 12, 1}, {2, 9, 1}, {0, 35, 1}});
  return script;
}

}  // namespace kforge::kernels::engine::model_testing
