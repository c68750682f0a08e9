#pragma once
// The numbers behind the families' adversarial input classes (docs/isolation.md, "Inputs no candidate can count
// on"), shared by the host families (kernels/host) and the cuda families (kernels/cuda/families) so that a class
// means the same inputs on both backends. Scales are powers of two: scaled values stay exact.
namespace kforge::kernels::input_classes {

inline constexpr int kGemmScaleExponent = 40;           // gemm huge / tiny: A and B times 2^+-40
inline constexpr float kKdaGateLowerBoundAlpha = 0.5f;  // kda gate_low: every g = log of the lowest alpha allowed
inline constexpr int kKdaValueScaleExponent = 50;       // kda v_huge / v_tiny: v times 2^+-50
inline constexpr int kRmsnormLargeRowExponent = 40;     // rmsnorm large_rows: every other row times 2^40

}  // namespace kforge::kernels::input_classes
