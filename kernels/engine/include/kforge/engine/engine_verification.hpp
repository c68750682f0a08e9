#pragma once
// verify() of the engine family (docs/engines.md, "Verification"): before any timing, a candidate engine serves
// a fixed-structure trace with fresh tokens from the evaluation's seed, and every step's logits are compared with
// the double-precision reference engine's (engine_tolerance.hpp). The structure is chosen to catch the ways an
// engine can be wrong while looking right on one request: a slot reused by a new request (stale cache), two
// prompts that differ only in their last token (outputs cached across requests), steps mixing prefill chunks and
// decodes, and decodes long enough to cross every KV block size.
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/model_weights.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::engine {

// What the engine must hold to be verified (its kInit may be larger): slots, positions per slot, and the most
// sequences and tokens of one step.
struct VerificationNeeds {
  std::int64_t slots = 0;
  std::int64_t max_context = 0;
  std::int64_t most_sequences = 0;
  std::int64_t most_tokens = 0;
};
VerificationNeeds verification_needs();

// The candidate's kStep: the last token's logits of each sequence (S * vocab floats).
using LogitsFn = std::function<std::vector<float>(std::span<const SeqDesc>, std::span<const std::int32_t>)>;

// Serves the verification trace drawn from `seed` through `candidate` (freshly initialised, or only ever used by
// earlier traces) and the reference. The tokens fed are the reference's greedy tokens. wrong_result when a logit
// is outside the tolerance, not finite, missing, or a greedy token differs beyond a near tie; failed_case is
// "engine_trace=1 request=R step=N position=P seed=S" (parse_case format, so it can join the validation set).
// Max abs/rel errors are over every logit compared.
// `tolerance`: the contract's (engine_tolerance.hpp; logit_tolerance of the engine's activations).
VerifyResult verify_engine_trace(const jobs::ModelSpec& model, const Weights& weights, std::uint64_t seed,
                                 const LogitsFn& candidate, double tolerance = kLogitRelTolerance);

// The seeds to verify with: standard_case_seed(seed, 0), then those of the validation cases that are engine
// traces (engine_trace=1 ... seed=S), in order.
std::vector<std::uint64_t> verification_seeds(std::uint64_t seed, const std::vector<std::string>& validation_cases);

// verify() of an engine backend: the trace of every verification seed, the standard one first; the first failure
// is the verdict (its evidence names the validation case that caught it), else the standard trace's result.
VerifyResult verify_engine(const jobs::ModelSpec& model, const Weights& weights, std::uint64_t seed,
                           const std::vector<std::string>& validation_cases, const LogitsFn& candidate,
                           double tolerance = kLogitRelTolerance);

}  // namespace kforge::kernels::engine
