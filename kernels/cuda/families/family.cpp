#include "family.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "gemm/gemm_family.hpp"
#include "host_data.hpp"
#include "kda/kda_family.hpp"
#include "kforge/jobs/validation_case.hpp"
#include "rmsnorm/rmsnorm_family.hpp"

namespace kforge::kernels::cuda {

std::string LaunchConfig::text() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "grid (%u,%u,%u) block (%u,%u,%u) dynamic smem %lld B", grid[0], grid[1], grid[2],
                block[0], block[1], block[2], static_cast<long long>(dynamic_shared_bytes));
  return buf;
}

namespace {
constexpr const char* kInputClassNames[] = {"ordinary", "huge",   "tiny",      "gate_low",  "gate_high",
                                            "v_huge",   "v_tiny", "zero_rows", "large_rows"};
constexpr std::int64_t kInputClassCount = sizeof kInputClassNames / sizeof kInputClassNames[0];
}  // namespace

std::string input_class_name(InputClass c) {
  const auto n = static_cast<std::int64_t>(c);
  return n >= 0 && n < kInputClassCount ? kInputClassNames[n] : "unknown(" + std::to_string(n) + ")";
}

InputClass input_class(const Problem& p) {
  const auto it = p.find("inputs");
  if (it == p.end()) return InputClass::ordinary;
  if (it->second < 0 || it->second >= kInputClassCount)
    throw std::invalid_argument("cuda families: inputs=" + std::to_string(it->second) + " names no input class");
  return static_cast<InputClass>(it->second);
}

std::optional<InputClass> input_class_named(std::string_view name) {
  if (name.empty()) return InputClass::ordinary;
  for (std::int64_t n = 0; n < kInputClassCount; ++n)
    if (name == kInputClassNames[n]) return static_cast<InputClass>(n);
  return std::nullopt;
}

Problem with_inputs(Problem p, InputClass c) {
  p["inputs"] = static_cast<std::int64_t>(c);
  return p;
}

std::string problem_text(const Problem& p) {
  std::string out;
  for (const auto& [name, value] : p)
    out += (out.empty() ? "" : " ") + name + "=" +
           (name == "inputs" ? input_class_name(static_cast<InputClass>(value)) : std::to_string(value));
  return out;
}

std::vector<VerificationCase> verification_cases(const CudaFamily& family, const Problem& main,
                                                 const std::vector<std::string>& validation_cases, std::uint64_t seed) {
  std::vector<VerificationCase> cases;
  std::vector<InputClass> classes;
  for (const Problem& p : family.verification_problems(main)) {
    cases.push_back({p, jobs::standard_case_seed(seed, cases.size()), false});
    classes.push_back(input_class(p));
  }
  for (const std::string& text : validation_cases) {
    const std::optional<jobs::ParsedCase> parsed = jobs::parse_case(text);
    if (!parsed || parsed->keys.size() != main.size() - main.count("inputs")) continue;
    const std::optional<InputClass> inputs = input_class_named(parsed->inputs);
    if (!inputs || std::find(classes.begin(), classes.end(), *inputs) == classes.end()) continue;
    jobs::EvalSettings sizes;
    for (const auto& [key, value] : parsed->keys) {
      if (!main.count(key)) break;
      sizes.problem[key] = value;
    }
    if (sizes.problem.size() != parsed->keys.size()) continue;  // another family's case
    try {
      cases.push_back({with_inputs(family.problem(sizes), *inputs), parsed->seed, true});
    } catch (const std::invalid_argument&) {  // sizes this family refuses: not its case
    }
  }
  return cases;
}

std::string case_text_of(const VerificationCase& c) {
  jobs::CaseKeys keys;
  for (const auto& [key, value] : c.problem)
    if (key != "inputs") keys.emplace_back(key, value);
  const InputClass inputs = input_class(c.problem);
  return jobs::case_text(keys, c.seed, inputs == InputClass::ordinary ? "" : input_class_name(inputs));
}

KernelArgs& KernelArgs::add(const void* bytes, std::size_t size) {
  std::array<std::byte, 8> slot{};
  std::memcpy(slot.data(), bytes, size);
  storage_.push_back(slot);
  return *this;
}

void** KernelArgs::pointers() {
  pointers_.clear();
  for (auto& slot : storage_) pointers_.push_back(slot.data());
  return pointers_.data();
}

bool ToleranceCheck::element(double got, double expected, double tolerance,
                             const std::function<std::string()>& index_text) {
  if (outcome_.status != jobs::Status::ok) return false;
  const double err = std::fabs(got - expected);
  max_abs_ref_ = std::max(max_abs_ref_, std::fabs(expected));
  outcome_.max_abs_error = std::max(outcome_.max_abs_error, std::isnan(err) ? INFINITY : err);
  outcome_.max_rel_error = max_abs_ref_ > 0 ? outcome_.max_abs_error / max_abs_ref_ : outcome_.max_abs_error;
  if (std::isfinite(got) && err <= tolerance) return true;
  outcome_.status = jobs::Status::wrong_result;
  char buf[200];
  std::snprintf(buf, sizeof buf, ": got %.9g, expected %.9g (|error| %.3g > tolerance %.3g)", got, expected, err,
                tolerance);
  outcome_.evidence = what_ + " " + index_text() + buf +
                      (std::isfinite(got) ? "" : " (NaN/Inf: an element the kernel did not write keeps its poison)");
  return false;
}

ParamSpace space_of(const FamilySchema& schema) {
  ParamSpace space;
  for (const ParameterSchema& p : schema.parameters)
    if (p.type == ParameterSchema::Type::integer && !p.int_choices.empty()) space[p.name] = p.int_choices;
  return space;
}

ParamSpace CudaFamily::space() const {
  const FamilySchema* schema = find_family_schema("cuda", name());
  if (schema == nullptr) throw std::logic_error("cuda family " + name() + " has no schema (family_schema.hpp)");
  return space_of(*schema);
}

std::optional<std::string> outside_space(const ParamSpace& space, const jobs::Genome& g) {
  for (const auto& [name, values] : space) {
    if (!g.has(name)) return "the genome lacks parameter " + name;
    std::int64_t v = 0;
    try {
      v = g.get_int(name);
    } catch (const std::exception& e) {
      return "parameter " + name + " must be an integer (" + e.what() + ")";
    }
    if (std::find(values.begin(), values.end(), v) == values.end()) {
      std::string allowed;
      for (auto a : values) allowed += (allowed.empty() ? "" : ", ") + std::to_string(a);
      return "parameter " + name + "=" + std::to_string(v) + " is not one of {" + allowed + "}";
    }
  }
  return std::nullopt;
}

std::vector<jobs::Genome> every_genome(const ParamSpace& space) {
  std::vector<jobs::Genome> out{jobs::Genome{}};
  for (const auto& [name, values] : space) {
    std::vector<jobs::Genome> next;
    for (const jobs::Genome& g : out)
      for (std::int64_t v : values) {
        jobs::Genome h = g;
        h.params[name] = v;
        next.push_back(std::move(h));
      }
    out = std::move(next);
  }
  return out;
}

std::int64_t problem_value(const Problem& p, const std::string& name) {
  const auto it = p.find(name);
  if (it == p.end()) throw std::invalid_argument("problem size lacks " + name + " (" + problem_text(p) + ")");
  return it->second;
}

std::vector<std::string> cuda_family_names() { return {"gemm", "kda", "kda_bf16", "kda_bf16_tc", "rmsnorm"}; }

std::unique_ptr<CudaFamily> make_cuda_family(std::string_view name) {
  if (name == "gemm") return std::make_unique<GemmFamily>();
  if (name == "kda") return std::make_unique<KdaFamily>();
  if (name == "kda_bf16") return std::make_unique<KdaFamily>(KdaPrecision::bf16);
  if (name == "kda_bf16_tc") return std::make_unique<KdaFamily>(KdaPrecision::bf16_tc);
  if (name == "rmsnorm") return std::make_unique<RmsnormFamily>();
  throw std::invalid_argument("cuda backend: unknown family \"" + std::string(name) +
                              "\" (known cuda families: gemm, kda, kda_bf16, kda_bf16_tc, rmsnorm)");
}

}  // namespace kforge::kernels::cuda
