#pragma once
// Calls into an engine through a candidate process (host/candidate_process.hpp): the invoke adapter that runs on
// the other side, kInit with the model's weights, and kStep with one step's sequences (engine_abi.hpp).
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>

#include "kforge/engine/engine_abi.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/engine/serving_loop.hpp"
#include "kforge/engine/serving_verdict.hpp"
#include "sandbox/candidate_process.hpp"

namespace kforge::kernels::engine {

// Runs in the candidate process: the entry point gets the header's integers and every buffer's address.
inline void invoke_engine(void* entry, std::byte* base, const host::CallHeader& h) {
  void* buffers[host::CallHeader::kMaxBuffers];
  for (int n = 0; n < host::CallHeader::kMaxBuffers; ++n) buffers[n] = base + h.offsets[n];
  reinterpret_cast<EngineFn>(entry)(h.args, buffers);
}

// kInit. Its mapping also carries a spare buffer as large as the largest step's buffers: a later step that needed
// a larger mapping would restart the candidate process and lose the engine's state (CandidateProcess::stage).
// The weights are copied in and never back (the candidate may write its buffers). Returns the call's wall ms.
double init_engine(host::CandidateProcess& process, const jobs::ModelSpec& model, Weights& weights,
                   const EngineSizes& sizes);

// kStep: the logits come back poisoned with NaN wherever the engine wrote nothing. ms is the engine call alone.
StepOutcome step_engine(host::CandidateProcess& process, std::span<const SeqDesc> seqs,
                        std::span<const std::int32_t> tokens, std::int64_t vocab);

// The serving loop's step function through `process` (step_engine); the process must outlive the function.
StepFn step_through(host::CandidateProcess& process, std::int64_t vocab);

// A candidate process for the engine `artefact` in `folder` (made anew: emptied, then holding only a copy of the
// shared object), so that nothing an earlier process of the same engine wrote is within its reach.
std::unique_ptr<host::CandidateProcess> engine_process_in(const std::filesystem::path& artefact,
                                                          const std::filesystem::path& folder);

}  // namespace kforge::kernels::engine
