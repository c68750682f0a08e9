#include "engine/engine_call.hpp"

#include <array>
#include <limits>
#include <vector>

#include "kforge/engine/rope.hpp"

namespace kforge::kernels::engine {
namespace {

std::size_t step_mapping_bytes(const EngineSizes& s, std::int64_t vocab) {
  const auto bytes = [](std::int64_t n, std::size_t each) { return static_cast<std::size_t>(n) * each; };
  const std::array<host::CallBuffer, 4> step{
      host::CallBuffer{nullptr, bytes(s.most_sequences * 3, sizeof(std::int64_t))},
      host::CallBuffer{nullptr, bytes(s.most_tokens, sizeof(std::int32_t))},
      host::CallBuffer{nullptr, bytes(s.most_sequences * vocab, sizeof(float))},
      host::CallBuffer{nullptr, bytes(kOperatorCount, sizeof(double))}};
  return host::layout_bytes(step);
}

}  // namespace

double init_engine(host::CandidateProcess& process, const jobs::ModelSpec& model, Weights& weights,
                   const EngineSizes& sizes) {
  std::array<std::int64_t, kInitArgs> args{};
  args[0] = kInit;
  args[kArgArchitecture] = model.architecture == "kimi-linear" ? 1 : 0;
  args[kArgLayers] = model.layers;
  args[kArgHidden] = model.hidden;
  args[kArgHeads] = model.heads;
  args[kArgKvHeads] = model.kv_heads;
  args[kArgHeadDim] = model.head_dim;
  args[kArgMlpHidden] = model.mlp_hidden;
  args[kArgVocab] = model.vocab;
  args[kArgTiedEmbeddings] = model.tied_embeddings ? 1 : 0;
  args[kArgAttentionEvery] = model.attention_every;
  args[kArgMaxSlots] = sizes.slots;
  args[kArgMaxContext] = sizes.max_context;
  args[kArgQkvBias] = model.qkv_bias ? 1 : 0;
  args[kArgQkNorm] = model.qk_norm ? 1 : 0;
  std::vector<double> scalars{model.rope_theta, model.norm_eps};
  const std::vector<double> inv_freq = rope_inverse_frequencies(model);
  scalars.insert(scalars.end(), inv_freq.begin(), inv_freq.end());
  std::vector<std::byte> spare(step_mapping_bytes(sizes, model.vocab));
  const std::array<host::CallBuffer, 3> buffers{
      host::CallBuffer{weights.data.data(), weights.data.size() * sizeof(float)},
      host::CallBuffer{scalars.data(), scalars.size() * sizeof(double)}, host::CallBuffer{spare.data(), spare.size()}};
  // Staged and run, never collected: copying the buffers back would let the candidate rewrite the harness's
  // weights, which the reference engine is built from.
  process.stage(args, buffers);
  return process.run();
}

StepOutcome step_engine(host::CandidateProcess& process, std::span<const SeqDesc> seqs,
                        std::span<const std::int32_t> tokens, std::int64_t vocab) {
  std::vector<std::int64_t> rows;
  rows.reserve(seqs.size() * 3);
  for (const SeqDesc& s : seqs) rows.insert(rows.end(), {s.slot, s.start_position, s.token_count});
  std::vector<std::int32_t> fed(tokens.begin(), tokens.end());
  StepOutcome out;
  out.logits.assign(seqs.size() * static_cast<std::size_t>(vocab), std::numeric_limits<float>::quiet_NaN());
  const std::array<std::int64_t, kStepArgs> args{kStep, static_cast<std::int64_t>(seqs.size()),
                                                 static_cast<std::int64_t>(tokens.size())};
  const std::array<host::CallBuffer, 4> buffers{
      host::CallBuffer{rows.data(), rows.size() * sizeof(std::int64_t)},
      host::CallBuffer{fed.data(), fed.size() * sizeof(std::int32_t)},
      host::CallBuffer{out.logits.data(), out.logits.size() * sizeof(float)},
      host::CallBuffer{out.op_seconds.data(), out.op_seconds.size() * sizeof(double)}};
  process.stage(args, buffers);
  out.ms = process.run();
  process.collect(buffers);
  return out;
}

StepFn step_through(host::CandidateProcess& process, std::int64_t vocab) {
  return [&process, vocab](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens, const RowWants&) {
    return step_engine(process, seqs, tokens, vocab);
  };
}

std::unique_ptr<host::CandidateProcess> engine_process_in(const std::filesystem::path& artefact,
                                                          const std::filesystem::path& folder) {
  std::error_code ignored;  // what an engine made undeletable stays; the scratch folder goes with the task
  std::filesystem::remove_all(folder, ignored);
  std::filesystem::create_directories(folder);
  const std::filesystem::path copy = folder / artefact.filename();
  std::filesystem::copy_file(artefact, copy);
  return std::make_unique<host::CandidateProcess>(copy, kEntryPoint, &invoke_engine, folder);
}

}  // namespace kforge::kernels::engine
