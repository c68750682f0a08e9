#pragma once
// A gemm call through a candidate process (candidate_process.hpp): its arguments, its buffers, and the adapter
// that makes the call on the other side.
#include <array>
#include <cstdint>

#include "kforge/kernels/gemm_problem.hpp"
#include "sandbox/candidate_process.hpp"

namespace kforge::kernels::host {

inline std::array<std::int64_t, 6> gemm_args(const gemm::Shape& s) { return {s.M, s.N, s.K, s.lda, s.ldb, s.ldc}; }

inline std::array<CallBuffer, 3> gemm_buffers(gemm::Operands& ops) {
  return {CallBuffer{ops.a.data(), ops.a.size() * sizeof(float)},
          CallBuffer{ops.b.data(), ops.b.size() * sizeof(float)},
          CallBuffer{ops.c.data(), ops.c.size() * sizeof(float)}};
}

// Runs in the candidate process.
inline void invoke_gemm(void* entry, std::byte* base, const CallHeader& h) {
  const auto kernel = reinterpret_cast<gemm::GemmFn>(entry);
  const auto at = [&](int n) { return reinterpret_cast<float*>(base + h.offsets[n]); };
  kernel(static_cast<int>(h.args[0]), static_cast<int>(h.args[1]), static_cast<int>(h.args[2]), at(0),
         static_cast<int>(h.args[3]), at(1), static_cast<int>(h.args[4]), at(2), static_cast<int>(h.args[5]));
}

}  // namespace kforge::kernels::host
