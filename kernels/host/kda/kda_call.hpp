#pragma once
// A kda call through a candidate process (candidate_process.hpp): its arguments, its buffers, and the adapter
// that makes the call on the other side.
#include <array>
#include <cstdint>

#include "kforge/kernels/kda_problem.hpp"
#include "sandbox/candidate_process.hpp"

namespace kforge::kernels::host {

inline std::array<std::int64_t, 4> kda_args(const kda::Shape& s) { return {s.B, s.H, s.T, s.D}; }

inline std::array<CallBuffer, 6> kda_buffers(kda::Inputs& in) {
  const auto buffer = [](std::vector<float>& v) { return CallBuffer{v.data(), v.size() * sizeof(float)}; };
  return {buffer(in.q), buffer(in.k), buffer(in.v), buffer(in.g), buffer(in.beta), buffer(in.o)};
}

// Runs in the candidate process.
inline void invoke_kda(void* entry, std::byte* base, const CallHeader& h) {
  const auto kernel = reinterpret_cast<kda::KdaFn>(entry);
  const auto at = [&](int n) { return reinterpret_cast<float*>(base + h.offsets[n]); };
  kernel(static_cast<int>(h.args[0]), static_cast<int>(h.args[1]), static_cast<int>(h.args[2]),
         static_cast<int>(h.args[3]), at(0), at(1), at(2), at(3), at(4), at(5));
}

}  // namespace kforge::kernels::host
