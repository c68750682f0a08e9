#pragma once
// What every family's schema (family_schema.hpp) is built from. Each family's schema lives beside the family
// (kernels/host/gemm/gemm_schema.cpp, kernels/cuda/families/kda/kda_schema.cpp, ...), one definition of its facts
// that its backend reads too (the cuda families' parameter spaces); all of them are compiled into
// kforge_family_schema, which depends on nothing.
#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kforge/kernels/family_schema.hpp"

namespace kforge::kernels::schema {

inline constexpr std::int64_t kGiB = std::int64_t{1} << 30;

inline ParameterSchema int_range(std::string name, std::int64_t min, std::int64_t max) {
  ParameterSchema p;
  p.name = std::move(name);
  p.min = min;
  p.max = max;
  return p;
}

inline ParameterSchema int_choice(std::string name, std::vector<std::int64_t> choices) {
  const auto [lo, hi] = std::minmax_element(choices.begin(), choices.end());
  ParameterSchema p = int_range(std::move(name), *lo, *hi);
  p.int_choices = std::move(choices);
  return p;
}

inline ParameterSchema string_choice(std::string name, std::vector<std::string> choices) {
  ParameterSchema p;
  p.name = std::move(name);
  p.type = ParameterSchema::Type::string;
  p.string_choices = std::move(choices);
  return p;
}

inline ProblemKeySchema key(std::string name, std::int64_t fallback, std::int64_t min, std::int64_t max,
                            std::int64_t multiple_of = 1) {
  ProblemKeySchema k;
  k.name = std::move(name);
  k.default_value = fallback;
  k.min = min;
  k.max = max;
  k.multiple_of = multiple_of;
  return k;
}

inline FamilySchema pair_of(std::string backend, std::string family) {
  FamilySchema s;
  s.backend = std::move(backend);
  s.family = std::move(family);
  return s;
}

inline TargetSchema target_of(std::string name, std::string note, std::int64_t device_memory_bytes) {
  TargetSchema t;
  t.name = std::move(name);
  t.note = std::move(note);
  t.device_memory_bytes = device_memory_bytes;
  return t;
}

inline double value(const ProblemSizes& p, const char* key) { return static_cast<double>(p.at(key)); }

inline std::vector<TargetSchema> cuda_targets() {
  return {target_of("hopper", "sm_90a", 80 * kGiB), target_of("blackwell", "sm_100a", 180 * kGiB)};
}

inline std::vector<std::string> gpu_target_names() {
  std::vector<std::string> names;
  for (const auto& t : cuda_targets()) names.push_back(t.name);
  return names;
}

// Every family's schema, one function beside each family.
FamilySchema host_gemm();
FamilySchema host_kda();
FamilySchema host_engine();
FamilySchema cuda_gemm();
FamilySchema cuda_kda_of(const char* name, double in_bytes);
FamilySchema cuda_rmsnorm();
FamilySchema cuda_engine();
FamilySchema replay_any();

}  // namespace kforge::kernels::schema
