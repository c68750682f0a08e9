#include "gemm/gemm_template.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <variant>
#include <vector>

#include "gemm/gemm_template_text.hpp"

namespace kforge::kernels::host {
namespace {

const std::vector<std::string> kIntParams = {"MC", "NC", "KC", "MR", "NR", "VEC", "UNROLL", "PACK"};
const std::vector<std::string> kLoopOrders = {"jpi", "pji", "jip"};

std::string join(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : ", ") + w;
  return out;
}

void require_known_and_present(const jobs::Genome& genome) {
  std::vector<std::string> known = kIntParams;
  known.push_back("LOOP_ORDER");
  std::vector<std::string> missing, unknown;
  for (const auto& name : known)
    if (!genome.has(name)) missing.push_back(name);
  for (const auto& [name, value] : genome.params)
    if (std::find(known.begin(), known.end(), name) == known.end()) unknown.push_back(name);
  std::string problems;
  if (!missing.empty()) problems += "missing parameter(s): " + join(missing);
  if (!unknown.empty())
    problems += (problems.empty() ? "" : "; ") + std::string("unknown parameter(s): ") + join(unknown);
  if (!problems.empty())
    throw std::invalid_argument("gemm host template: " + problems + " (expected: " + join(known) + ")");
}

int int_param(const jobs::Genome& genome, const std::string& name, std::int64_t lo, std::int64_t hi) {
  const auto* value = std::get_if<std::int64_t>(&genome.params.at(name));
  if (value == nullptr) throw std::invalid_argument("gemm host template: parameter " + name + " must be an integer");
  if (*value < lo || *value > hi)
    throw std::invalid_argument("gemm host template: parameter " + name + "=" + std::to_string(*value) +
                                " is outside [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return static_cast<int>(*value);
}

void check_value_rules(const GemmTemplateParams& p) {
  if (p.VEC != 1 && p.VEC != 2 && p.VEC != 4 && p.VEC != 8 && p.VEC != 16)
    throw std::invalid_argument("gemm host template: VEC=" + std::to_string(p.VEC) + " must be 1, 2, 4, 8 or 16");
  if (p.NR % p.VEC != 0)
    throw std::invalid_argument("gemm host template: NR=" + std::to_string(p.NR) +
                                " is not a multiple of VEC=" + std::to_string(p.VEC) + " (constraint NR % VEC == 0)");
  if (std::find(kLoopOrders.begin(), kLoopOrders.end(), p.LOOP_ORDER) == kLoopOrders.end())
    throw std::invalid_argument("gemm host template: LOOP_ORDER=\"" + p.LOOP_ORDER + "\" must be one of " +
                                join(kLoopOrders));
}

}  // namespace

GemmTemplateParams gemm_params_from_genome(const jobs::Genome& genome) {
  require_known_and_present(genome);
  GemmTemplateParams p;
  p.MC = int_param(genome, "MC", 1, 4096);
  p.NC = int_param(genome, "NC", 1, 8192);
  p.KC = int_param(genome, "KC", 1, 4096);
  p.MR = int_param(genome, "MR", 1, 32);
  p.NR = int_param(genome, "NR", 1, 128);
  p.VEC = int_param(genome, "VEC", 1, 16);
  p.UNROLL = int_param(genome, "UNROLL", 1, 64);
  p.PACK = int_param(genome, "PACK", 0, 1) == 1;
  const auto* order = std::get_if<std::string>(&genome.params.at("LOOP_ORDER"));
  if (order == nullptr) throw std::invalid_argument("gemm host template: parameter LOOP_ORDER must be a string");
  p.LOOP_ORDER = *order;
  check_value_rules(p);
  return p;
}

std::string render_gemm_source(const GemmTemplateParams& p) {
  check_value_rules(p);
  std::string out = text::header(p);
  out += text::vector_helpers(p.VEC);
  if (p.PACK) {
    out += text::packing();
    out += text::packed_micro_kernel();
    out += text::packed_macro_kernel();
  } else {
    out += text::direct_micro_kernel();
    out += text::direct_macro_kernel();
  }
  out += text::entry_point(p);
  return out;
}

}  // namespace kforge::kernels::host
