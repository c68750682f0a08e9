#pragma once
// What each (backend, family) pair that make_backend() knows accepts, as data: its template parameters (names,
// types, ranges), its problem keys (defaults, ranges), its baselines, the hardware targets it can evaluate and
// the memory its main problem needs. `kforge validate` / `kforge run` check a campaign against this before
// anything is written (scheduler/config/src/family_check.cpp); the backends' own checks stay as the last line,
// and tests/kernels/family_schema_test.cpp (host) and tests/kernels_cuda/cuda_family_schema_test.cpp (cuda)
// prove the two agree. This library depends on nothing: a login node without CUDA validates cuda campaigns.
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kforge::kernels {

struct ParameterSchema {
  enum class Type { integer, string };
  std::string name;
  Type type = Type::integer;
  std::int64_t min = 0, max = 0;            // integers: the inclusive range
  std::vector<std::int64_t> int_choices;    // integers: when non-empty, the only values the template takes
  std::vector<std::string> string_choices;  // strings: the only values the template takes
  // Integers: when set, the space may leave the parameter out and the template uses this value (a parameter that
  // only some models use, e.g. the engine's KDA_* on a llama model); when unset, every space must list it.
  std::optional<std::int64_t> default_value;
  std::optional<std::string> default_string;  // strings: the same, for a string parameter (the engine's weights)
  bool optional() const { return default_value.has_value() || default_string.has_value(); }
  std::string allowed() const;  // "an integer in [1, 4096]", "one of 1, 2, 4, 8, 16", "one of 'jpi', 'pji'" (+ default)
};

struct ProblemKeySchema {
  std::string name;
  std::int64_t default_value = 0;  // used when evaluation.problem leaves the key out
  std::int64_t min = 1, max = 1;
  std::int64_t multiple_of = 1;
  std::string allowed() const;  // "an integer in [1, 65536]", "... and a multiple of 8"
};

using ProblemSizes = std::map<std::string, std::int64_t>;

// Where the main problem's buffers must fit: the candidate's address-space limit (host: the sandbox's
// RLIMIT_AS, evaluation.memory_limit_mb) or the memory of the target's GPU (cuda).
enum class MemoryBudget { none, sandbox_limit, device_memory };

struct TargetSchema {
  std::string name;                      // "hopper"
  std::string note;                      // "sm_90a"
  std::int64_t device_memory_bytes = 0;  // the smallest GPU of that kind (cuda)
};

struct FamilySchema {
  std::string backend;
  std::string family;  // "*" for replay: any family, its space is the measured cache
  std::vector<ParameterSchema> parameters;
  bool parameters_from_cache = false;  // replay: the cache's tune_params define the parameters
  std::vector<ProblemKeySchema> problem;
  std::vector<std::string> baselines;
  std::vector<TargetSchema> targets;  // what the backend can evaluate; empty: any name (an island's label)
  // Names it cannot evaluate where they mean hardware (host: the GPU targets hopper, blackwell), accepted only on
  // a Slurm site, where a target names the partition whose nodes' CPUs run it.
  std::vector<std::string> refused_targets;
  MemoryBudget memory = MemoryBudget::none;
  // Bytes the main problem's buffers need (inputs, outputs, reference), defaults filled in.
  std::function<double(const ProblemSizes&)> problem_bytes;
  // A rule across keys (element counts that must fit 32-bit indices); returns the problem, or nothing.
  std::function<std::optional<std::string>(const ProblemSizes&)> problem_rule;

  std::string pair() const;  // "host/gemm", "replay/any"
  const ParameterSchema* parameter(std::string_view name) const;
  const ProblemKeySchema* problem_key(std::string_view name) const;
  const TargetSchema* target(std::string_view name) const;
  ProblemSizes problem_with_defaults(const ProblemSizes& given) const;
};

const std::vector<FamilySchema>& family_schemas();
// nullptr when make_backend() knows no such pair.
const FamilySchema* find_family_schema(std::string_view backend, std::string_view family);
// "host/gemm, host/kda, host/engine, cuda/gemm, cuda/kda, cuda/rmsnorm, cuda/engine, replay/any"
std::string known_family_pairs();
// The families of one backend: "gemm, kda" ("any" for replay; "" for an unknown backend).
std::string families_of(std::string_view backend);

}  // namespace kforge::kernels
