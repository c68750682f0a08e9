// The host gemm family's parameters and problem (family_schema.hpp): gemm_template.cpp and gemm_problem.cpp
// read the same names; tests/kernels/family_schema_test.cpp holds them to it.
#include "kforge/kernels/family_schema_builders.hpp"

namespace kforge::kernels::schema {

FamilySchema host_gemm() {
  FamilySchema s = pair_of("host", "gemm");
  s.parameters = {
      int_range("MC", 1, 4096),   int_range("NC", 1, 8192),   int_range("KC", 1, 4096),
      int_range("MR", 1, 32),     int_range("NR", 1, 128),    int_choice("VEC", {1, 2, 4, 8, 16}),
      int_range("UNROLL", 1, 64), int_choice("PACK", {0, 1}), string_choice("LOOP_ORDER", {"jpi", "pji", "jip"})};
  s.problem = {key("M", 256, 1, 65536), key("N", 256, 1, 65536), key("K", 256, 1, 65536)};
  s.baselines = {"reference", "openblas"};
  s.refused_targets = gpu_target_names();
  s.memory = MemoryBudget::sandbox_limit;
  // A, B, C in fp32, and the double-precision reference with its error bound per element of C.
  s.problem_bytes = [](const ProblemSizes& p) {
    const double M = value(p, "M"), N = value(p, "N"), K = value(p, "K");
    return 4.0 * (M * K + K * N + M * N) + 16.0 * M * N;
  };
  return s;
}

}  // namespace kforge::kernels::schema
