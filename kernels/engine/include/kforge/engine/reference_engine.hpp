#pragma once
// The double-precision reference engine: the model of docs/engines.md computed in double, a step's tokens at once
// (or naively, token by token: ReferenceArithmetic::scalar), and, to check whole requests quickly, whole sequences at
// once (teacher_forced). Every candidate's logits are
// checked against it (engine_tolerance.hpp), and it is the "reference" baseline of the serving measurement
// (reference_engine_entry runs it behind the candidate ABI).
#include <array>
#include <chrono>
#include <cstdint>
#include <span>
#include <vector>

#include "kforge/engine/engine_abi.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/jobs/engine_spec.hpp"

namespace kforge::kernels::engine {

// One sequence of a step: kStep's {slot, start_position, token_count}.
struct SeqDesc {
  std::int64_t slot = 0;
  std::int64_t start_position = 0;  // 0 = a new request in this slot (the slot's old cache is gone)
  std::int64_t token_count = 0;
};

// A whole sequence fed from position 0 (teacher forcing), and the first position whose logits are wanted.
struct ForcedSequence {
  std::span<const std::int32_t> tokens;
  std::int64_t first_row = 0;  // logits of positions first_row .. tokens.size() - 1
};

// How step() and teacher_forced() compute: every token of a step through each layer together, each projection one
// double matrix product (blocked, the default), or token by token with naive loops (scalar: the plainest statement
// of the math, which tests hold the blocked arithmetic to; step() only). bf16_operands is blocked with every operand
// of a matrix product rounded to bf16 as a tensor-core engine with bf16 activations multiplies them (each
// projection's input rows, an attention layer's q, k and v after RoPE, and attention's unnormalised softmax
// weights), every sum still double: what such an engine honestly computes, which sets the activation contract's
// tolerance (engine_tolerance.hpp; bench/precision_cost). Never the reference a candidate is checked against.
enum class ReferenceArithmetic { blocked, scalar, bf16_operands };

class ReferenceEngine {
 public:
  // Throws std::invalid_argument for an unusable model or sizes (check_model, max_slots/max_context < 1).
  ReferenceEngine(const jobs::ModelSpec& model, const Weights& weights, int max_slots, int max_context,
                  ReferenceArithmetic arithmetic = ReferenceArithmetic::blocked);

  // kStep's semantics: tokens holds each sequence's tokens in order; returns the logits of the last token of each
  // sequence, S * vocab. Throws std::invalid_argument for a bad slot, a start_position that does not continue the
  // slot's sequence (or exceeds max_context), a token out of range, or a token count that does not add up.
  std::vector<double> step(const std::vector<SeqDesc>& seqs, const std::vector<std::int32_t>& tokens);

  // The logits step() would give at positions first_row.. of each sequence if the sequence were fed to a fresh slot
  // one token per step: the same double arithmetic (reference_math.hpp), but every projection of every token at
  // once as one matrix product (OpenBLAS dgemm), so checking whole served requests costs a fraction of step()'s
  // time. Per sequence, its rows of vocab logits in position order. Leaves the slots untouched. Throws
  // std::invalid_argument for an empty sequence, a token out of range or first_row outside the sequence.
  std::vector<std::vector<double>> teacher_forced(std::span<const ForcedSequence> seqs) const;

  const jobs::ModelSpec& model() const { return model_; }
  std::int64_t position(int slot) const;  // tokens held by the slot

  // RoPE's inverse frequencies (rope.hpp), from the model unless replaced: the reference behind the ABI rotates
  // with the table kInit hands every engine. Throws std::invalid_argument for a table of another size.
  void use_rope_inverse_frequencies(std::vector<double> inv_freq);

  // Seconds spent per operator class (engine_abi.hpp's kOperators) during the last step.
  const std::array<double, kOperatorCount>& last_step_seconds() const { return seconds_; }

 private:
  struct Layer {  // offsets into w_ of one layer's tensors (f and b only for KDA layers, biases with qkv_bias)
    bool attention = true;
    std::size_t in_norm = 0, q = 0, k = 0, v = 0, f = 0, b = 0, o = 0, post_norm = 0, gate = 0, up = 0, down = 0;
    std::size_t q_bias = 0, k_bias = 0, v_bias = 0;
    std::size_t q_norm = 0, k_norm = 0;  // with qk_norm
  };
  struct Slot {
    std::int64_t length = 0;
    std::vector<std::vector<double>> k, v;   // per layer: [position][kv_heads * head_dim] (attention layers)
    std::vector<std::vector<double>> state;  // per layer: [heads][head_dim][head_dim] (KDA layers)
  };
  void reset(Slot& slot) const;
  // y [n x out] (+)= x [n x in] W^T (reference_blas::project), x first rounded to bf16 under bf16_operands.
  void project(const double* x, std::int64_t n, std::int64_t in, const double* w, std::int64_t out, double* y,
               bool accumulate = false) const;
  // Rounds `count` values to bf16 in place under bf16_operands (an operand of attention's products); else nothing.
  void operand(double* x, std::int64_t count) const;
  // attend()'s softmax probabilities as bf16 operands of its product with v.
  bool bf16_probabilities() const { return arithmetic_ == ReferenceArithmetic::bf16_operands; }
  // What follows the q, k and v projections of `rows` rows before RoPE: with qkv_bias each gets its projection's
  // bias added (Qwen2); with qk_norm each head of q and k is RMS-normalised with its gamma (Qwen3).
  void finish_qkv(const Layer& layer, std::int64_t rows, double* q, double* k, double* v) const;
  // Many token rows at once (step_blocked and teacher_forced alike), each projection one dgemm: an attention layer's
  // q, k and v (biases added) from the normalised rows h, and a KDA layer's q, k, v, f and b.
  void project_attention_inputs(const Layer& layer, const std::vector<double>& h, std::vector<double>& q,
                                std::vector<double>& k, std::vector<double>& v) const;
  void project_kda_inputs(const Layer& layer, const std::vector<double>& h, std::vector<double>& q,
                          std::vector<double>& k, std::vector<double>& v, std::vector<double>& f,
                          std::vector<double>& b) const;
  // x += W_down (SiLU(W_gate h) * W_up h) for every row of h; gate and up are scratch of rows x mlp_hidden.
  void mlp_residual(const Layer& layer, const std::vector<double>& h, std::vector<double>& gate,
                    std::vector<double>& up, std::vector<double>& x) const;
  std::vector<double> step_blocked(const std::vector<SeqDesc>& seqs, const std::vector<std::int32_t>& tokens);
  void step_attention(const Layer& layer, std::size_t l, const std::vector<SeqDesc>& seqs, const std::vector<double>& h,
                      std::vector<double>& mixed);
  void step_kda(const Layer& layer, std::size_t l, const std::vector<SeqDesc>& seqs, const std::vector<double>& h,
                std::vector<double>& mixed);
  void forward_token(Slot& slot, std::int32_t token, double* logits);
  void attention(const Layer& layer, std::size_t l, Slot& slot, const std::vector<double>& h, std::vector<double>& out);
  void kda(const Layer& layer, std::size_t l, Slot& slot, const std::vector<double>& h, std::vector<double>& out);
  void timed(int op, const auto& work) {  // adds work()'s seconds to operator class op
    const auto start = std::chrono::steady_clock::now();
    work();
    seconds_[static_cast<std::size_t>(op)] +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  // teacher_forced's token mixers: every token's mixer output (rows of heads * head_dim) from its normalised input.
  void forced_attention(const Layer& layer, std::span<const ForcedSequence> seqs, const std::vector<double>& h,
                        std::vector<double>& mixed) const;
  void forced_kda(const Layer& layer, std::span<const ForcedSequence> seqs, const std::vector<double>& h,
                  std::vector<double>& mixed) const;

  jobs::ModelSpec model_;
  std::vector<double> inv_freq_;  // RoPE, head_dim / 2 values
  std::vector<double> w_;         // the weights in double, in Weights::data's layout
  std::vector<Layer> layers_;
  std::size_t embed_ = 0, final_norm_ = 0, lm_head_ = 0;
  std::vector<Slot> slots_;
  int max_context_ = 0;
  ReferenceArithmetic arithmetic_ = ReferenceArithmetic::blocked;
  std::array<double, kOperatorCount> seconds_{};
};

// The reference engine behind the candidate ABI (engine_abi.hpp), with its state in this function's statics:
// kInit builds a ReferenceEngine from the flat weights, kStep runs it and writes its logits as float and its
// operator seconds. A call the engine refuses (bad slot, position, token) prints why to stderr and returns NaN
// logits, which every check fails.
// The threads the reference's matrix products may use in this process (OpenBLAS's), 1 unless set: the host backend
// leaves it at 1 (the reference runs between a host candidate's timed runs, on the cores they are timed on, where
// BLAS threads still spinning would disturb them); the cuda backend gives it the CPUs of its rank's share of the
// node (KFORGE_CPUS_PER_RANK, kforge-eval), where at 1B parameters a single core spends minutes per candidate.
void set_reference_threads(int threads);
int reference_threads();

extern "C" void reference_engine_entry(const std::int64_t* args, void* const* buffers);

}  // namespace kforge::kernels::engine
