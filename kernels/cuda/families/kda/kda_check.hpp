#pragma once
// The two contracts a kda kernel's outputs are held to, against the per-token recurrence in double
// (kda_reference_head), one (sequence, head) at a time: every head of a verification problem, one sampled head of
// the main problem (full = false; `seed` picks it).
//   strict (kda, kda_bf16): every element of o and of the final state within 1e-3 of the largest magnitude of that
//     output in its head plus a relative part (1e-3; o_rel_tolerance for o, which adds bf16's 2^-8 in kda_bf16).
//   tensor_core (kda_bf16_tc): FLA's own bound for chunk_kda (its tests' get_err_ratio): the RMS of the error over
//     the RMS of the reference at most 0.005 for o and for the final state, and every element finite; held per
//     (sequence, head), not per tensor, so one wrong head or one short sequence of a batch cannot hide in the mean.
#include <cstdint>
#include <string>
#include <vector>

#include "kda/kda_family.hpp"

namespace kforge::kernels::cuda {

inline constexpr double kKdaRmsErrorBound = 0.005;  // FLA tests/ops/test_kda.py: assert_close(..., 0.005)

CheckOutcome check_kda(const std::string& family, const KdaInputs& in, const std::vector<float>& o,
                       const std::vector<float>& state, bool full, std::uint64_t seed, double o_rel_tolerance);
CheckOutcome check_kda_rms(const std::string& family, const KdaInputs& in, const std::vector<float>& o,
                           const std::vector<float>& state, bool full, std::uint64_t seed);

}  // namespace kforge::kernels::cuda
