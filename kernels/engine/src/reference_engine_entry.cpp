// The reference engine behind the candidate ABI (reference_engine.hpp): the "reference" baseline runs in a
// CandidateProcess exactly like a candidate.
#include <algorithm>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>

#include "kforge/engine/reference_engine.hpp"

namespace kforge::kernels::engine {

extern "C" void reference_engine_entry(const std::int64_t* args, void* const* buffers) {
  static std::unique_ptr<ReferenceEngine> engine;
  static std::int64_t vocab = 0;
  try {
    if (args[0] == kInit) {
      jobs::ModelSpec m;
      m.architecture = args[kArgArchitecture] == 1 ? "kimi-linear" : "llama";
      m.layers = args[kArgLayers];
      m.hidden = args[kArgHidden];
      m.heads = args[kArgHeads];
      m.kv_heads = args[kArgKvHeads];
      m.head_dim = args[kArgHeadDim];
      m.mlp_hidden = args[kArgMlpHidden];
      m.vocab = args[kArgVocab];
      m.tied_embeddings = args[kArgTiedEmbeddings] != 0;
      m.attention_every = args[kArgAttentionEvery];
      m.qkv_bias = args[kArgQkvBias] != 0;
      m.qk_norm = args[kArgQkNorm] != 0;
      const auto* constants = static_cast<const double*>(buffers[1]);
      m.rope_theta = constants[0];
      m.norm_eps = constants[1];
      Weights w = empty_weights(m);
      std::copy_n(static_cast<const float*>(buffers[0]), w.data.size(), w.data.begin());
      engine = std::make_unique<ReferenceEngine>(m, w, static_cast<int>(args[kArgMaxSlots]),
                                                 static_cast<int>(args[kArgMaxContext]));
      engine->use_rope_inverse_frequencies({constants + 2, constants + 2 + m.head_dim / 2});
      vocab = m.vocab;
      return;
    }
    if (args[0] != kStep || !engine)
      throw std::invalid_argument("reference engine: a step before kInit, or an unknown op");
    const std::int64_t S = args[1], N = args[2];
    const auto* desc = static_cast<const std::int64_t*>(buffers[0]);
    std::vector<SeqDesc> seqs(static_cast<std::size_t>(S));
    for (std::int64_t i = 0; i < S; ++i)
      seqs[static_cast<std::size_t>(i)] = {desc[3 * i], desc[3 * i + 1], desc[3 * i + 2]};
    const auto* tok = static_cast<const std::int32_t*>(buffers[1]);
    const std::vector<double> logits = engine->step(seqs, std::vector<std::int32_t>(tok, tok + N));
    auto* out = static_cast<float*>(buffers[2]);
    for (std::size_t i = 0; i < logits.size(); ++i) out[i] = static_cast<float>(logits[i]);
    std::copy(engine->last_step_seconds().begin(), engine->last_step_seconds().end(), static_cast<double*>(buffers[3]));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    if (args[0] == kStep) {
      auto* out = static_cast<float*>(buffers[2]);
      for (std::int64_t i = 0; i < args[1] * vocab; ++i) out[i] = std::numeric_limits<float>::quiet_NaN();
    }
  }
}

}  // namespace kforge::kernels::engine
