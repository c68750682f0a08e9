// The host kda family's parameters and problem (family_schema.hpp): kda_template.cpp and kda_problem.cpp read
// the same names; tests/kernels/family_schema_test.cpp holds them to it.
#include "kforge/kernels/family_schema_builders.hpp"

namespace kforge::kernels::schema {

FamilySchema host_kda() {
  FamilySchema s = pair_of("host", "kda");
  s.parameters = {int_choice("CHUNK", {16, 32, 64}), int_range("DV_TILE", 1, 1024), int_range("UNROLL", 1, 16),
                  int_choice("VEC", {1, 2, 4, 8, 16})};
  s.problem = {key("B", 1, 1, 4096), key("H", 4, 1, 4096), key("T", 256, 1, 1 << 20), key("D", 128, 1, 1024)};
  s.baselines = {"reference"};
  s.refused_targets = gpu_target_names();
  s.memory = MemoryBudget::sandbox_limit;
  // q, k, v, g, o and beta in fp32, plus one head's reference output and state in double.
  s.problem_bytes = [](const ProblemSizes& p) {
    const double rows = value(p, "B") * value(p, "H") * value(p, "T"), D = value(p, "D");
    return 4.0 * (5.0 * rows * D + rows) + 8.0 * (value(p, "T") * D + D * D);
  };
  s.problem_rule = [](const ProblemSizes& p) -> std::optional<std::string> {
    if (value(p, "B") * value(p, "H") * value(p, "T") * value(p, "D") > static_cast<double>(std::int64_t{1} << 31))
      return "B*H*T*D exceeds 2^31 elements per tensor";
    return std::nullopt;
  };
  return s;
}

}  // namespace kforge::kernels::schema
