// The engine template's text (engine_template_text.hpp): the prelude (the genome's constants), the model's weights
// and caches, and kInit.
#include "engine/engine_template_text.hpp"

namespace kforge::kernels::engine::text {

std::string engine_prelude(const EngineTemplateParams& p) {
  auto flag = [](bool b) { return std::string(b ? "true" : "false"); };
  return R"(// kforge engine candidate for the host backend, rendered from the genome (docs/engines.md)
//   fuse_qkv=)" +
         flag(p.fuse_qkv) + " fuse_gate_up=" + flag(p.fuse_gate_up) + " fold_norm=" + flag(p.fold_norm) +
         " residual_epilogue=" + flag(p.residual_epilogue) + " prepack=" + flag(p.prepack) +
         " kv_block=" + std::to_string(p.kv_block) + " threads=" + std::to_string(p.threads) +
         " KDA_CHUNK=" + std::to_string(p.kda.CHUNK) + " weights=" + std::string(precision_name(p.weights)) + R"(
// One engine for both architectures (llama; kimi-linear: KDA + attention layers), chosen at kInit. Every
// projection runs on the gemm family's kernel below (gemm_kernel); the options pick code paths at compile time.
// Arithmetic is fp32; the weights are stored at the genome's precision (WEIGHTS).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>

#include <sched.h>
#include <vector>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {
constexpr bool FUSE_QKV = )" +
         flag(p.fuse_qkv) + R"(;
constexpr bool FUSE_GATE_UP = )" +
         flag(p.fuse_gate_up) + R"(;
constexpr bool FOLD_NORM = )" +
         flag(p.fold_norm) + R"(;
constexpr bool RESIDUAL_EPILOGUE = )" +
         flag(p.residual_epilogue) + R"(;
constexpr bool PREPACK = )" +
         flag(p.prepack) + R"(;
constexpr long KV_BLOCK = )" +
         std::to_string(p.kv_block) + R"(;
constexpr int THREADS_WANTED = )" +
         std::to_string(p.threads) + R"(;  // 0: every CPU of the process's affinity mask
constexpr int WEIGHTS = )" +
         std::to_string(static_cast<int>(p.weights)) + R"(;  // the matrices: 0 fp32, 1 bf16, 2 int8 (per-row scales)
constexpr int PREFETCH = )" +
         std::to_string(p.prefetch) + R"(;  // bytes ahead each weight panel is prefetched; 0: none
constexpr long KDA_CHUNK = )" +
         std::to_string(p.kda.CHUNK) + R"(;  // 0: KDA token by token; else the kda family's chunk (kda_kernel)
}  // namespace

)";
}

std::string engine_setup() {
  return R"ENG(

enum OpIndex { kEmbed, kNorm, kQkv, kAttention, kKda, kOProj, kMlp, kLmHead, kOps };

// ---- the model
struct Layer {
  bool attention = true;
  std::vector<float> in_gamma, post_gamma;
  std::vector<Linear> in_proj;  // q, k, v (and f, b for KDA): one fused Linear or one per tensor
  std::vector<float> in_bias;   // with q/k/v biases: q's, k's and v's, in the projection's column order
  std::vector<float> q_norm, k_norm;  // with q/k norms (Qwen3): head_dim gammas each
  Linear o;
  std::vector<Linear> gate_up;  // gate and up: one fused Linear or two
  Linear down;
  int cache_index = 0;  // among the attention layers, or among the KDA layers
};

struct Model {
  i64 arch = 0, layers = 0, hidden = 0, heads = 0, kv_heads = 0, head_dim = 0, mlp = 0, vocab = 0, every = 0;
  i64 slots = 0, context = 0;
  bool tied = true, qkv_bias = false, qk_norm = false;
  double eps = 1e-5;  // buffers[1][0], rope_theta, is not needed: RoPE comes as inverse frequencies
  i64 q_width = 0, kv_width = 0, proj_width = 0;  // proj_width: columns of the attention layers' projection
  i64 kda_proj_width = 0;
  int attn_layers = 0, kda_layers = 0;
};

Model M;
std::vector<Layer> layers;
std::vector<float> embed, final_gamma;
Linear lm_head;
std::vector<float> rope_cos, rope_sin;  // [position][head_dim / 2]

// KV cache. KV_BLOCK = 0: one region per slot [attention layer][position][kv_width]; else blocks of KV_BLOCK
// positions ([attention layer][KV_BLOCK][kv_width]) from a shared pool, listed per slot in a block table.
std::vector<std::unique_ptr<float[]>> slot_k, slot_v;
std::unique_ptr<float[]> pool_k, pool_v;
std::vector<int> free_blocks;
std::vector<std::vector<int>> block_table;
std::vector<i64> slot_length;
std::vector<std::vector<float>> kda_state;  // per slot: [KDA layer][head][D][D]

float* kv_at(bool value, i64 slot, int layer, i64 pos) {
  if constexpr (KV_BLOCK == 0) {
    float* base = (value ? slot_v : slot_k)[slot].get();
    return base + (static_cast<i64>(layer) * M.context + pos) * M.kv_width;
  } else {
    const i64 block = block_table[slot][pos / KV_BLOCK];
    float* base = (value ? pool_v : pool_k).get();
    return base + ((block * M.attn_layers + layer) * KV_BLOCK + pos % KV_BLOCK) * M.kv_width;
  }
}

void reset_slot(i64 s) {
  slot_length[s] = 0;
  if constexpr (KV_BLOCK != 0) {
    for (int b : block_table[s]) free_blocks.push_back(b);
    block_table[s].clear();
  } else {
    if (!slot_k[s] && M.attn_layers > 0) {  // allocated at first use; pages are touched only as positions fill
      slot_k[s].reset(new float[static_cast<std::size_t>(M.attn_layers * M.context * M.kv_width)]);
      slot_v[s].reset(new float[static_cast<std::size_t>(M.attn_layers * M.context * M.kv_width)]);
    }
  }
  std::fill(kda_state[s].begin(), kda_state[s].end(), 0.0f);
}

void reserve_positions(i64 s, i64 end) {
  if constexpr (KV_BLOCK != 0) {
    if (M.attn_layers == 0) return;
    while (static_cast<i64>(block_table[s].size()) * KV_BLOCK < end) {
      block_table[s].push_back(free_blocks.back());
      free_blocks.pop_back();
    }
  }
}

void init(const std::int64_t* args, void* const* buffers) {
  M.arch = args[1];
  M.layers = args[2];
  M.hidden = args[3];
  M.heads = args[4];
  M.kv_heads = args[5];
  M.head_dim = args[6];
  M.mlp = args[7];
  M.vocab = args[8];
  M.tied = args[9] != 0;
  M.every = args[10];
  M.slots = args[11];
  M.context = args[12];
  M.qkv_bias = args[13] != 0;
  M.qk_norm = args[14] != 0;
  M.eps = static_cast<const double*>(buffers[1])[1];
  const i64 H = M.hidden, D = M.head_dim;
  M.q_width = M.heads * D;
  M.kv_width = M.kv_heads * D;
  M.proj_width = M.q_width + 2 * M.kv_width;
  M.kda_proj_width = 4 * M.q_width + M.heads;
  // The flat weights in model_weights.hpp's order.
  const float* w = static_cast<const float*>(buffers[0]);
  auto take = [&](i64 n) { const float* p = w; w += n; return p; };
  const float* emb = take(M.vocab * H);
  embed.assign(emb, emb + M.vocab * H);
  layers.assign(static_cast<std::size_t>(M.layers), Layer{});
  for (i64 l = 0; l < M.layers; ++l) {
    Layer& L = layers[l];
    L.attention = M.arch == 0 || (l + 1) % M.every == 0;
    L.cache_index = L.attention ? M.attn_layers++ : M.kda_layers++;
    const float* in_gamma = take(H);
    L.in_gamma.assign(in_gamma, in_gamma + H);
    std::vector<const float*> parts;
    std::vector<i64> outs;
    if (L.attention) {
      outs = {M.q_width, M.kv_width, M.kv_width};
    } else {
      outs = {M.q_width, M.q_width, M.q_width, M.q_width, M.heads};
    }
    for (i64 o : outs) parts.push_back(take(o * H));
    if (L.attention && M.qkv_bias) {
      const float* bias = take(M.proj_width);  // q_proj.bias, k_proj.bias, v_proj.bias: adjacent, in column order
      L.in_bias.assign(bias, bias + M.proj_width);
    }
    if (L.attention && M.qk_norm) {
      const float* q_norm = take(D);
      L.q_norm.assign(q_norm, q_norm + D);
      const float* k_norm = take(D);
      L.k_norm.assign(k_norm, k_norm + D);
    }
    const float* fold = FOLD_NORM ? in_gamma : nullptr;
    if constexpr (FUSE_QKV) {
      L.in_proj.push_back(make_linear(parts, outs, H, fold));
    } else {
      for (std::size_t p = 0; p < parts.size(); ++p) L.in_proj.push_back(make_linear({parts[p]}, {outs[p]}, H, fold));
    }
    L.o = make_linear({take(H * M.q_width)}, {H}, M.q_width, nullptr);
    const float* post_gamma = take(H);
    L.post_gamma.assign(post_gamma, post_gamma + H);
    const float* gate = take(M.mlp * H);
    const float* up = take(M.mlp * H);
    const float* fold_post = FOLD_NORM ? post_gamma : nullptr;
    if constexpr (FUSE_GATE_UP) {
      L.gate_up.push_back(make_linear({gate, up}, {M.mlp, M.mlp}, H, fold_post));
    } else {
      L.gate_up.push_back(make_linear({gate}, {M.mlp}, H, fold_post));
      L.gate_up.push_back(make_linear({up}, {M.mlp}, H, fold_post));
    }
    L.down = make_linear({take(H * M.mlp)}, {H}, M.mlp, nullptr);
  }
  const float* fg = take(H);
  final_gamma.assign(fg, fg + H);
  const float* head = M.tied ? emb : take(M.vocab * H);
  lm_head = make_linear({head}, {M.vocab}, H, FOLD_NORM ? fg : nullptr);
  // RoPE tables in double, then float: Hugging Face's rotate_half convention (i pairs with i + D/2), each pair
  // turned by position x the inverse frequency kInit gives (engine_abi.hpp: Llama 3's scaling included).
  const i64 half = D / 2;
  const double* inv_freq = static_cast<const double*>(buffers[1]) + 2;
  rope_cos.resize(static_cast<std::size_t>(M.context * half));
  rope_sin.resize(rope_cos.size());
  for (i64 p = 0; p < M.context; ++p)
    for (i64 i = 0; i < half; ++i) {
      const double angle = static_cast<double>(p) * inv_freq[i];
      rope_cos[p * half + i] = static_cast<float>(std::cos(angle));
      rope_sin[p * half + i] = static_cast<float>(std::sin(angle));
    }
  slot_k.clear();
  slot_v.clear();
  slot_k.resize(static_cast<std::size_t>(M.slots));
  slot_v.resize(static_cast<std::size_t>(M.slots));
  block_table.assign(static_cast<std::size_t>(M.slots), {});
  slot_length.assign(static_cast<std::size_t>(M.slots), 0);
  kda_state.assign(static_cast<std::size_t>(M.slots),
                   std::vector<float>(static_cast<std::size_t>(M.kda_layers * M.heads * D * D), 0.0f));
  if constexpr (KV_BLOCK != 0) {
    const i64 per_slot = (M.context + KV_BLOCK - 1) / KV_BLOCK, blocks = per_slot * M.slots;
    const std::size_t floats = static_cast<std::size_t>(blocks * M.attn_layers * KV_BLOCK * M.kv_width);
    pool_k.reset(new float[floats > 0 ? floats : 1]);
    pool_v.reset(new float[floats > 0 ? floats : 1]);
    free_blocks.clear();
    for (i64 b = blocks - 1; b >= 0; --b) free_blocks.push_back(static_cast<int>(b));
  }
  if (pool == nullptr) {
    cpu_set_t allowed;
    const int cpus = sched_getaffinity(0, sizeof allowed, &allowed) == 0 ? CPU_COUNT(&allowed) : 1;
    THREADS = THREADS_WANTED > 0 ? THREADS_WANTED : std::max(cpus, 1);
    pool = new Pool;
    pool->start();
  }
}
)ENG";
}

}  // namespace kforge::kernels::engine::text
