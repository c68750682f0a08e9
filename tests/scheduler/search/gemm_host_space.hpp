#pragma once
// The search space of share/examples/gemm-host.yaml, written out by hand so these tests do not depend on the
// config parser. Keep in step with that file.
#include <string>
#include <vector>

#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler::testing {

inline ParameterSpec int_parameter(const std::string& name, const std::vector<long long>& values) {
  ParameterSpec p;
  p.name = name;
  for (long long v : values) p.values.emplace_back(static_cast<std::int64_t>(v));
  return p;
}

inline ParameterSpec string_parameter(const std::string& name, const std::vector<std::string>& values) {
  ParameterSpec p;
  p.name = name;
  for (const std::string& v : values) p.values.emplace_back(v);
  return p;
}

inline ConstraintSpec constraint(const std::string& text, int line = 1, int column = 1) {
  return ConstraintSpec{text, SourceLocation{"campaign.yaml", line, column}};
}

inline SpaceSpec gemm_host_space() {
  SpaceSpec s;
  s.parameters = {int_parameter("MC", {16, 32, 48, 64, 96, 128, 192, 256}),
                  int_parameter("NC", {64, 128, 256, 512, 1024}),
                  int_parameter("KC", {32, 64, 128, 192, 256, 384, 512}),
                  int_parameter("MR", {1, 2, 3, 4, 6, 8}),
                  int_parameter("NR", {4, 8, 16, 24, 32}),
                  int_parameter("VEC", {1, 4, 8}),
                  int_parameter("UNROLL", {1, 2, 4, 8}),
                  int_parameter("PACK", {0, 1}),
                  string_parameter("LOOP_ORDER", {"jpi", "pji", "jip"})};
  s.constraints = {constraint("NR % VEC == 0", 24), constraint("MC % MR == 0", 25), constraint("NC % NR == 0", 26),
                   constraint("MR * (NR / VEC) <= 32", 27)};
  return s;
}

}  // namespace kforge::scheduler::testing
