#pragma once
// The kda family's baseline on the host: "reference", the naive per-token recurrence in fp32 (the family
// baseline that speedups are measured against: speedup = reference / candidate).
#include <string>
#include <vector>

#include "kforge/kernels/kda_problem.hpp"

namespace kforge::kernels::host {

// The per-token recurrence, head by head, in float.
void reference_kda(int B, int H, int T, int D, const float* q, const float* k, const float* v, const float* g,
                   const float* beta, float* o);

const std::vector<std::string>& kda_baseline_names();  // "reference"

// The kernel of a baseline by name. Throws std::invalid_argument naming the unknown baseline and the known ones.
kda::KdaFn kda_baseline(const std::string& name);

}  // namespace kforge::kernels::host
