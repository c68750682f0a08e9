// The cuda rmsnorm family's parameters and problem: RmsnormFamily::space() is read from here.
#include "kforge/kernels/family_schema_builders.hpp"

namespace kforge::kernels::schema {

FamilySchema cuda_rmsnorm() {
  FamilySchema s = pair_of("cuda", "rmsnorm");
  s.parameters = {int_choice("VEC", {1, 2, 4, 8}), int_choice("THREADS_PER_ROW", {32, 64, 128, 256, 512, 1024}),
                  int_choice("ROWS_PER_BLOCK", {1, 2, 4, 8})};
  s.problem = {key("rows", 8192, 1, 1 << 24), key("hidden", 7168, 1, 1 << 20, 8)};
  s.baselines = {"reference"};
  s.targets = cuda_targets();
  s.memory = MemoryBudget::device_memory;
  s.problem_bytes = [](const ProblemSizes& p) {  // RmsnormFamily::bytes
    return 2.0 * (2.0 * value(p, "rows") * value(p, "hidden") + value(p, "hidden"));
  };
  return s;
}

}  // namespace kforge::kernels::schema
