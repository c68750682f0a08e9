#pragma once
// Correctness of an fp32 engine against the double-precision reference (docs/engines.md, "Correctness").
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

namespace kforge::kernels::engine {

// Per logit row (one sequence's vocab logits): |got - ref| <= kLogitRelTolerance * scale, where
// scale = max(max|ref| over the row, 1). Chosen from measurement (docs/engines.md, "Correctness"): the template's
// fp32 engines (2..8 layers, hidden 64..512, both architectures) stay below 1e-6; the same engines on bf16-rounded
// weights land at 5e-4..5e-3 on every row. 1e-4 leaves two orders of magnitude for other honest fp32 summation
// orders and a factor 5 below the best bf16 row.
inline constexpr double kLogitRelTolerance = 1e-4;

// The activation contract (docs/engines.md, "Activations"): an engine that declares bf16 activations multiplies
// bf16 operands (tensor cores' inputs) with fp32 sums, and is held to the same rule with this tolerance instead.
// Chosen from measurement (bench/precision_cost, ReferenceArithmetic::bf16_operands against exact arithmetic on
// the same bf16 weights, random weights): 1.6e-3 at hidden 64, 7.2e-4 at SmolLM-135M's shape, 3.6e-4 at
// Llama-3.2-1B's. 1e-2 leaves a factor 6 over the worst for trained models' wider activations.
inline constexpr double kLogitRelToleranceBf16Activations = 1e-2;

// What an engine declares of its activations: fp32 (the default; kLogitRelTolerance) or bf16.
enum class ActivationPrecision { fp32, bf16 };
// "fp32", "bf16"; parse throws std::invalid_argument naming the value for anything else.
ActivationPrecision parse_activation_precision(const std::string& name);
const char* activation_precision_name(ActivationPrecision a);
// The tolerance of "Correctness" an engine with these activations is held to.
double logit_tolerance(ActivationPrecision a);
// Bytes of one value of the KV cache of an engine with these activations: 4, or 2 (bf16; the cuda engine's cache
// then holds bf16, and the physical floor counts it so).
inline constexpr std::size_t kv_value_bytes(ActivationPrecision a) { return a == ActivationPrecision::bf16 ? 2 : 4; }

struct LogitCheck {
  double max_abs = 0.0;  // max |got - ref|
  double max_rel = 0.0;  // max |got - ref| / scale of its row
  bool ok = true;        // every element within the tolerance, no NaN/Inf
  std::string evidence;  // empty when ok: the first offending row and element, its value and the reference's
};

// The rule's pieces, one definition for every check (compare_logits, greedy_agrees, the served checks of sampled
// columns): a row's scale, max(max|ref| over the row, 1); one logit's error, |got - ref|, infinite where got is NaN
// or Inf; and whether a token the engine chose is the reference's argmax or a near tie with it (the reference's
// logit at the token within twice the tolerance x scale of its maximum: each of the two may be off by one).
double logit_row_scale(std::span<const double> reference_row);
double logit_error(double reference, float got);
bool acceptable_choice(std::span<const double> reference_row, std::size_t token, double tolerance, double scale);

// reference and got hold rows of `vocab` logits (same size, a multiple of vocab). A NaN or Inf fails.
LogitCheck compare_logits(std::span<const double> reference, std::span<const float> got, std::int64_t vocab,
                          double tolerance = kLogitRelTolerance);

// Greedy agreement of one row: true when got's argmax is the reference's argmax, or the reference's logit at got's
// argmax is within twice the tolerance of the reference maximum (a near tie that rounding within the tolerance
// may flip: each of the two logits may be off by tolerance x scale).
bool greedy_agrees(std::span<const double> reference_row, std::span<const float> got_row,
                   double tolerance = kLogitRelTolerance);

// Index of the largest element (the first one on ties).
std::int64_t argmax(std::span<const double> row);
std::int64_t argmax(std::span<const float> row);

}  // namespace kforge::kernels::engine
