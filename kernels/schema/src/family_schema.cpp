// The registry of every (backend, family) pair's schema (family_schema.hpp), and what a schema says of itself. Each
// family's schema is beside the family (family_schema_builders.hpp lists them).
#include "kforge/kernels/family_schema.hpp"

#include <algorithm>
#include <utility>

#include "kforge/kernels/family_schema_builders.hpp"

namespace kforge::kernels {
namespace {

std::string join_ints(const std::vector<std::int64_t>& v) {
  std::string out;
  for (auto x : v) out += (out.empty() ? "" : ", ") + std::to_string(x);
  return out;
}

}  // namespace

std::string ParameterSchema::allowed() const {
  if (type == Type::string) {
    std::string out;
    for (const auto& s : string_choices) out += (out.empty() ? "'" : ", '") + s + "'";
    return "one of " + out + (default_string ? " (default '" + *default_string + "')" : "");
  }
  const std::string left_out = default_value ? " (default " + std::to_string(*default_value) + ")" : "";
  if (!int_choices.empty()) return "one of the integers " + join_ints(int_choices) + left_out;
  return "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]" + left_out;
}

std::string ProblemKeySchema::allowed() const {
  std::string out = "an integer in [" + std::to_string(min) + ", " + std::to_string(max) + "]";
  if (multiple_of > 1) out += " and a multiple of " + std::to_string(multiple_of);
  return out + ", default " + std::to_string(default_value);
}

std::string FamilySchema::pair() const { return backend + "/" + (family == "*" ? "any" : family); }

const ParameterSchema* FamilySchema::parameter(std::string_view name) const {
  for (const auto& p : parameters)
    if (p.name == name) return &p;
  return nullptr;
}

const ProblemKeySchema* FamilySchema::problem_key(std::string_view name) const {
  for (const auto& k : problem)
    if (k.name == name) return &k;
  return nullptr;
}

const TargetSchema* FamilySchema::target(std::string_view name) const {
  for (const auto& t : targets)
    if (t.name == name) return &t;
  return nullptr;
}

ProblemSizes FamilySchema::problem_with_defaults(const ProblemSizes& given) const {
  ProblemSizes out = given;
  for (const auto& k : problem) out.emplace(k.name, k.default_value);
  return out;
}

const std::vector<FamilySchema>& family_schemas() {
  using namespace schema;
  static const std::vector<FamilySchema> all = {host_gemm(),
                                                host_kda(),
                                                host_engine(),
                                                cuda_gemm(),
                                                cuda_kda_of("kda", 4),
                                                cuda_kda_of("kda_bf16", 2),
                                                cuda_kda_of("kda_bf16_tc", 2),
                                                cuda_rmsnorm(),
                                                cuda_engine(),
                                                replay_any()};
  return all;
}

const FamilySchema* find_family_schema(std::string_view backend, std::string_view family) {
  for (const auto& s : family_schemas())
    if (s.backend == backend && (s.family == family || s.family == "*")) return &s;
  return nullptr;
}

std::string known_family_pairs() {
  std::string out;
  for (const auto& s : family_schemas()) out += (out.empty() ? "" : ", ") + s.pair();
  return out;
}

std::string families_of(std::string_view backend) {
  std::string out;
  for (const auto& s : family_schemas())
    if (s.backend == backend) out += (out.empty() ? "" : ", ") + (s.family == "*" ? std::string("any") : s.family);
  return out;
}

}  // namespace kforge::kernels
