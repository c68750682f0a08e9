#pragma once
// The one C entry point every engine candidate exports, and the calls the harness makes through it (docs/engines.md).
// An engine candidate is a shared object; it runs in a confined candidate process of its own
// (host/candidate_process.hpp), which keeps its state (packed weights, KV caches, KDA states) between calls.
// The harness, never the candidate, owns the serving loop, the clock and the verdict: it decides which sequences
// are in each step (the genome's batching policy), times every step call, and checks the returned logits.
//
//   extern "C" void kforge_engine(const int64_t* args, void* const* buffers);
//
// args[0] is the operation:
//  kInit: once, before anything else. args[1..kInitArgs) = the model (InitArg order below), buffers[0] = every
//         weight as float32, concatenated in model_weights.hpp's tensor order, buffers[1] = double[2 + head_dim/2]
//         {rope_theta, norm_eps, RoPE's inverse frequency of each pair of head dimensions (rope.hpp: an engine
//         rotates with these, which carry Llama 3's scaling, rather than computing them from rope_theta)}. The engine
//         copies (or packs) what it needs: buffers are reused by later calls.
//  kStep: one forward step over a batch of sequences. args[1] = number of sequences S, args[2] = total tokens N.
//         buffers[0] = int64[S * 3]: per sequence {slot, start_position, token_count}; a sequence with
//         start_position 0 starts a new request in that slot (whatever the slot held before is gone).
//         buffers[1] = int32[N]: the tokens of each sequence in order. buffers[2] = float32[S * vocab] out: the
//         logits of the LAST token of each sequence. buffers[3] = double[kOperatorCount] out: seconds the engine
//         spent in each operator class during this step (self-reported evidence, never part of a verdict).
#include <array>
#include <cstdint>
#include <string_view>

namespace kforge::kernels::engine {

inline constexpr const char* kEntryPoint = "kforge_engine";
using EngineFn = void (*)(const std::int64_t* args, void* const* buffers);

enum Op : std::int64_t { kInit = 0, kStep = 1 };

// kInit's integer arguments, args[1] onwards.
enum InitArg : int {
  kArgArchitecture = 1,  // 0 = llama, 1 = kimi-linear
  kArgLayers,
  kArgHidden,
  kArgHeads,
  kArgKvHeads,
  kArgHeadDim,
  kArgMlpHidden,
  kArgVocab,
  kArgTiedEmbeddings,  // 1 = the LM head is the embedding
  kArgAttentionEvery,
  kArgMaxSlots,    // sequences that can be alive at once (slot ids are 0 .. max_slots-1)
  kArgMaxContext,  // positions per sequence (prompt + output)
  kArgQkvBias,     // 1 = attention layers add a bias after the q, k and v projections (Qwen2)
  kArgQkNorm,      // 1 = attention layers RMS-normalise each head of q and k before RoPE (Qwen3)
  kInitArgs
};

inline constexpr int kStepArgs = 3;

// Where the time goes, per step (buffers[3] of kStep).
inline constexpr std::array<std::string_view, 8> kOperators = {"embed", "norm",   "qkv_proj", "attention",
                                                               "kda",   "o_proj", "mlp",      "lm_head"};
inline constexpr int kOperatorCount = static_cast<int>(kOperators.size());

}  // namespace kforge::kernels::engine
