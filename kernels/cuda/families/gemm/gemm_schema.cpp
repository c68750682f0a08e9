// The cuda gemm family's parameters and problem: GemmFamily::space() is read from here.
#include "kforge/kernels/family_schema_builders.hpp"

namespace kforge::kernels::schema {

FamilySchema cuda_gemm() {
  FamilySchema s = pair_of("cuda", "gemm");
  s.parameters = {int_choice("BM", {64, 128, 256}), int_choice("BN", {64, 128, 256}), int_choice("BK", {32, 64}),
                  int_choice("WM", {32, 64}),       int_choice("WN", {32, 64, 128}),  int_choice("STAGES", {2, 3, 4}),
                  int_choice("GROUP_M", {1, 8})};
  s.problem = {key("M", 4096, 1, 1 << 20), key("N", 4096, 1, 1 << 20, 8), key("K", 4096, 1, 1 << 20, 8)};
  s.baselines = {"reference", "cublas"};
  s.targets = cuda_targets();
  s.memory = MemoryBudget::device_memory;
  s.problem_bytes = [](const ProblemSizes& p) {  // A, B in bf16, C in fp32 (GemmFamily::bytes)
    const double M = value(p, "M"), N = value(p, "N"), K = value(p, "K");
    return 2.0 * (M * K + K * N) + 4.0 * M * N;
  };
  return s;
}

}  // namespace kforge::kernels::schema
