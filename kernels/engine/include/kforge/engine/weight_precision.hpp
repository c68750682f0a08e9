#pragma once
// The precision an engine declares for its weights (docs/engines.md, "Precisions"): how the model's matrices are
// stored. The harness rounds the model's weights to the declared precision once, exactly as defined here, and both
// the engine (kInit's buffers) and the double reference get the rounded values: a precision changes the model an
// engine serves, never the arithmetic it is held to (engine_tolerance.hpp applies unchanged).
#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace kforge::kernels::engine {

struct Weights;

enum class WeightPrecision { fp32, bf16, int8, fp8 };

// "fp32", "bf16", "int8", "fp8" (fp8 is served by the cuda engine only).
std::string_view precision_name(WeightPrecision p);
// Throws std::invalid_argument naming the value and the known ones.
WeightPrecision parse_weight_precision(std::string_view name);
// Bytes of one stored matrix element (4, 2, 1, 1); vectors (norms, biases) stay fp32.
double bytes_per_weight(WeightPrecision p);

// bf16: round to nearest, ties to even, of the top 16 bits of the float (NaN kept a NaN).
float round_to_bf16(float x);

// int8 weight-only, symmetric, one scale per row (an output channel of a [out][in] matrix):
// scale = max|row| / 127 (a float division), q = round-half-even(x / scale) (a float division) clamped to
// [-127, 127], the value q * scale (a float product). An all-zero row has scale 0 and stays zero.
float int8_row_scale(std::span<const float> row);
void round_row_to_int8(std::span<float> row);

// fp8 weight-only, E4M3 (OCP's E4M3FN: 4 exponent bits of bias 7, 3 mantissa bits, largest 448, subnormals down to
// 2^-9, no infinity), one scale per row: scale = max|row| / 448 (a float division), the value
// e4m3(x / scale) * scale, e4m3 rounding to the nearest representable value (ties to even) and clamping to +-448.
float round_to_e4m3(float y);
// The E4M3 bits of a value round_to_e4m3 returns (exactly representable), and back.
std::uint8_t e4m3_bits(float representable);
float e4m3_value(std::uint8_t bits);
float fp8_row_scale(std::span<const float> row);
void round_row_to_fp8(std::span<float> row);

// Every matrix (a tensor of two dimensions) of `w` rounded to `p`, and w.precision set; vectors untouched.
// Throws std::logic_error when `w` is already rounded to another precision.
void round_weights(Weights& w, WeightPrecision p);

}  // namespace kforge::kernels::engine
