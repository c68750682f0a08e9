#include "family.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "gemm/gemm_family.hpp"
#include "host_data.hpp"
#include "kda/kda_family.hpp"
#include "rmsnorm/rmsnorm_family.hpp"

namespace kforge::kernels::cuda {

std::string LaunchConfig::text() const {
  char buf[160];
  std::snprintf(buf, sizeof buf, "grid (%u,%u,%u) block (%u,%u,%u) dynamic smem %lld B", grid[0], grid[1], grid[2],
                block[0], block[1], block[2], static_cast<long long>(dynamic_shared_bytes));
  return buf;
}

std::string problem_text(const Problem& p) {
  std::string out;
  for (const auto& [name, value] : p) out += (out.empty() ? "" : " ") + name + "=" + std::to_string(value);
  return out;
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

std::int64_t problem_value(const Problem& p, const std::string& name) {
  const auto it = p.find(name);
  if (it == p.end()) throw std::invalid_argument("problem size lacks " + name + " (" + problem_text(p) + ")");
  return it->second;
}

std::vector<std::string> cuda_family_names() { return {"gemm", "kda", "rmsnorm"}; }

std::unique_ptr<CudaFamily> make_cuda_family(std::string_view name) {
  if (name == "gemm") return std::make_unique<GemmFamily>();
  if (name == "kda") return std::make_unique<KdaFamily>();
  if (name == "rmsnorm") return std::make_unique<RmsnormFamily>();
  throw std::invalid_argument("cuda backend: unknown family \"" + std::string(name) +
                              "\" (known cuda families: gemm, kda, rmsnorm)");
}

}  // namespace kforge::kernels::cuda
