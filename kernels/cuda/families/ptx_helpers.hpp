#pragma once
// The PTX helpers the cuda families' templates share (gemm, kda, kda_bf16, kda_bf16_tc), as CUDA C++ text each
// render puts before its kernel body: cp.async with its groups, ldmatrix, mma.sync at bf16 with fp32 accumulation,
// bf16 rounding as cvt.rn.bf16.f32, dynamic shared memory. Inline assembly, so NVRTC needs no header. Everything
// but the bf16_t type is under #ifndef KF_EMULATION: tests/kernels_cuda/emulator/ defines the same names for the
// CPU emulation, with the PTX ISA's semantics.
namespace kforge::kernels::cuda {

const char* ptx_helpers_text();  // ptx_helpers.cpp

}  // namespace kforge::kernels::cuda
