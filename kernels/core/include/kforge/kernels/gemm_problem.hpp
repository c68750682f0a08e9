#pragma once
// The gemm family, independent of the backend: problem shapes, random operands, the double-precision
// reference and the tolerance rule. C = A * B in fp32, row-major.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/record.hpp"
#include "kforge/jobs/status.hpp"

namespace kforge::kernels::gemm {

// The signature every gemm candidate exports as extern "C" kforge_gemm.
using GemmFn = void (*)(int M, int N, int K, const float* A, int lda, const float* B, int ldb, float* C, int ldc);
inline constexpr const char* kEntryPoint = "kforge_gemm";

// Input classes besides the ordinary uniform [-1, 1]: every element of A and B scaled by 2^40 ("huge": products
// near 2^80, far beyond fp16/bf16 range, sums still finite in fp32 for any K allowed) or by 2^-40 ("tiny":
// products near 2^-80, still normal fp32 numbers). A kernel that is right only for inputs of order one fails one.
inline const std::vector<std::string> kInputClasses = {"huge", "tiny"};

struct Shape {
  int M = 0, N = 0, K = 0;
  int lda = 0, ldb = 0, ldc = 0;  // leading dimensions (>= K, N, N)
  std::string inputs;             // the input class, "" for the ordinary inputs
  std::string text() const;       // "MxNxK", the leading dimensions when padded, the input class when not ordinary
  // As a validation case (verification.hpp): M, N, K, lda, ldb, ldc (and inputs=NAME); from_case refuses sizes
  // out of bounds and unknown input classes.
  std::vector<std::pair<std::string, std::int64_t>> case_keys() const;
  static std::optional<Shape> from_case(const std::map<std::string, std::int64_t>& keys,
                                        const std::string& inputs = {});
  double flop() const { return 2.0 * M * N * K; }
};

// settings.problem M, N, K (256 each when absent). Throws std::invalid_argument for a non-positive size.
Shape main_shape(const jobs::EvalSettings& settings);

// The main shape first, then edge shapes: tiny, odd, padded leading dimensions, main+1/-3/+5, and shapes
// that cross every block size the templates allow (K > 1024, N > 1024, M > 256); then the adversarial input
// classes on shapes whose K (65, 1031) is a multiple of no tile size.
std::vector<Shape> verification_shapes(const Shape& main);

// Inputs uniform in [-1, 1] (times the input class's scale); C (and its padding) poisoned with a NaN so unwritten
// elements show up.
struct Operands {
  Shape shape;
  std::vector<float> a, b, c;
  void poison_c();
  void refill(std::mt19937_64& rng);  // fresh A and B (timed calls never see the same inputs twice)
  void call(GemmFn kernel) {
    kernel(shape.M, shape.N, shape.K, a.data(), shape.lda, b.data(), shape.ldb, c.data(), shape.ldc);
  }
};
Operands random_operands(const Shape& shape, std::mt19937_64& rng);

struct CheckOutcome {
  jobs::Status status = jobs::Status::ok;  // ok, wrong_result or cheat_detected
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;  // max |c - ref| / max |ref|: normwise, stable where single refs are near zero
  std::string evidence;        // empty when ok
};

// Calls the kernel on fresh operands of this shape and checks everything: inputs untouched, nothing written
// outside C, no NaN/Inf, every element within 2*K*FLT_EPSILON*sum_k|a_ik*b_kj| + 1e-30 of the reference.
// How the check calls the candidate: in this process, or in the candidate's own (host/candidate_process.hpp).
using Runner = std::function<void(Operands&)>;
CheckOutcome check_kernel(const Runner& run, const Shape& shape, std::mt19937_64& rng);
CheckOutcome check_kernel(GemmFn kernel, const Shape& shape, std::mt19937_64& rng);

// After a timed call: checks `count` random elements of C against the reference; "" when they are right.
std::string spot_check(const Operands& ops, std::mt19937_64& rng, int count);

}  // namespace kforge::kernels::gemm
