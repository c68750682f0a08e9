#pragma once
// One token of Kimi Delta Attention's recurrence for one head, the one definition that the kda family's double
// reference (kda_problem.hpp), the cuda kda family's reference over variable-length batches and the engine's double
// reference engine (a KDA layer's mixer) all run:
//   S <- Diag(alpha) S;   S <- S + k (beta (v - S^T k))^T;   o = S^T (scale q)
// S is D x D, key rows and value columns; alpha (the decay per key channel, in (0, 1]) is the caller's: e^g in the
// kda family, e^-softplus(f) in the engine's model.
#include <cstddef>
#include <vector>

namespace kforge::kernels::kda {

// `o` gets D values; `ks` is a work buffer of D values. Input is float (the family's inputs) or Real.
template <typename Real, typename Input>
void recurrence_step(Real* S, std::size_t D, const Input* q, const Input* k, const Input* v, const Real* alpha,
                     Real beta, Real scale, Real* o, Real* ks) {
  for (std::size_t c = 0; c < D; ++c)  // S <- Diag(alpha) S
    for (std::size_t col = 0; col < D; ++col) S[c * D + col] *= alpha[c];
  for (std::size_t col = 0; col < D; ++col) ks[col] = Real(0);  // S^T k
  for (std::size_t c = 0; c < D; ++c)
    for (std::size_t col = 0; col < D; ++col) ks[col] += static_cast<Real>(k[c]) * S[c * D + col];
  for (std::size_t col = 0; col < D; ++col) ks[col] = beta * (static_cast<Real>(v[col]) - ks[col]);  // the delta
  for (std::size_t c = 0; c < D; ++c)                                                                // S += k delta^T
    for (std::size_t col = 0; col < D; ++col) S[c * D + col] += static_cast<Real>(k[c]) * ks[col];
  for (std::size_t col = 0; col < D; ++col) o[col] = Real(0);
  for (std::size_t c = 0; c < D; ++c) {  // o = S^T (scale q)
    const Real qc = scale * static_cast<Real>(q[c]);
    for (std::size_t col = 0; col < D; ++col) o[col] += qc * S[c * D + col];
  }
}

}  // namespace kforge::kernels::kda
