#pragma once
// RoPE's inverse frequencies, one per pair of head dimensions: the one definition the reference engine, the host
// engines (through kInit's constants, engine_abi.hpp) and the cuda engine all rotate with (docs/engines.md, "The
// math"). Hugging Face's rotate_half convention: dimension i pairs with i + head_dim / 2, and a query or key at
// position p turns pair i by p * inv_freq[i].
#include <vector>

#include "kforge/jobs/engine_spec.hpp"

namespace kforge::kernels::engine {

// inv_freq[i] = rope_theta^(-2i / head_dim), i < head_dim / 2; with Llama 3's scaling (rope_scaling_factor > 0)
// rescaled as transformers' _compute_llama3_parameters does: wavelength w = 2 pi / inv_freq; w below
// original_context / high_freq_factor keeps inv_freq, w above original_context / low_freq_factor gets
// inv_freq / factor, and between them s = (original_context / w - low) / (high - low) interpolates:
// (1 - s) * inv_freq / factor + s * inv_freq. Computed in double (transformers uses float32).
std::vector<double> rope_inverse_frequencies(const jobs::ModelSpec& model);

}  // namespace kforge::kernels::engine
