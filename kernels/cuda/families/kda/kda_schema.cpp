// The cuda kda and kda_bf16 families' parameters and problem: KdaFamily::space() is read from here.
#include "kforge/kernels/family_schema_builders.hpp"

#include <optional>

namespace kforge::kernels::schema {

// kda and kda_bf16 (KdaFamily, kernels/cuda/families/kda/): one parameter space and problem; in_bytes, the size of
// an element of q, k, v, beta and o (4 or 2), sets the traffic.
FamilySchema cuda_kda_of(const char* name, double in_bytes) {
  FamilySchema s = pair_of("cuda", name);
  s.parameters = {int_choice("CHUNK", {16, 32, 64}), int_choice("BV", {16, 32, 64, 128}),
                  int_choice("WARPS", {2, 4, 8, 16}), int_choice("STAGES", {1, 2, 3})};
  s.problem = {key("B", 1, 1, 65535), key("T", 8192, 1, std::int64_t{1} << 31), key("H", 32, 1, 65535),
               key("D", 128, 128, 128), key("varlen", 0, 0, 1)};
  s.baselines = {"reference"};
  s.targets = cuda_targets();
  s.memory = MemoryBudget::device_memory;
  s.problem_bytes = [in_bytes](const ProblemSizes& p) {  // KdaFamily::bytes
    const double rows = value(p, "B") * value(p, "T") * value(p, "H"), D = value(p, "D");
    return in_bytes * (4.0 * rows * D + rows) + 4.0 * rows * D + 4.0 * value(p, "B") * value(p, "H") * D * D;
  };
  s.problem_rule = [](const ProblemSizes& p) -> std::optional<std::string> {
    if (value(p, "B") * value(p, "T") * value(p, "H") * value(p, "D") > static_cast<double>(std::int64_t{1} << 31))
      return "B*T*H*D exceeds 2^31 elements per tensor";
    return std::nullopt;
  };
  return s;
}

}  // namespace kforge::kernels::schema
