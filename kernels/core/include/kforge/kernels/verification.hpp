#pragma once
// verify() of the host families: the family's standard shapes, then every case of the campaign's validation
// set (EvalSettings.validation_cases). Each check draws its inputs from its own seed, so the case that caught a
// wrong candidate ("M=7 N=5 K=3 lda=3 ldb=5 ldc=5 seed=123") reproduces exactly, and is reported in
// VerifyResult.failed_case for the scheduler to add to the validation set. A case may name an adversarial input
// class ("... inputs=huge seed=123"): the family's inputs drawn from that class instead of its ordinary
// distribution (each family's classes: docs/isolation.md, "Inputs no candidate can count on").
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kforge/jobs/validation_case.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels {

using jobs::case_text;
using jobs::CaseKeys;
using jobs::parse_case;
using jobs::ParsedCase;
using jobs::standard_case_seed;

// Shape needs: CaseKeys case_keys() const; a std::string inputs member (its input class, "" for the ordinary
// inputs); static std::optional<Shape> from_case(const std::map<...>&, const std::string& inputs) (nullopt for a
// case of another family, sizes out of bounds or an input class the family lacks). check(shape, rng) returns an
// outcome with status,
// max_abs_error, max_rel_error and evidence. The error figures reported are those of the first (main) shape.
template <class Shape, class Check>
VerifyResult verify_with_cases(const std::vector<Shape>& standard, const jobs::EvalSettings& settings,
                               std::uint64_t seed, Check check) {
  std::vector<std::pair<Shape, std::uint64_t>> cases;
  for (std::size_t n = 0; n < standard.size(); ++n) cases.emplace_back(standard[n], standard_case_seed(seed, n));
  for (const std::string& text : settings.validation_cases) {
    const std::optional<ParsedCase> parsed = parse_case(text);
    if (!parsed) continue;  // not this family's: nothing to reproduce here
    if (std::optional<Shape> shape = Shape::from_case(parsed->keys, parsed->inputs))
      cases.emplace_back(*shape, parsed->seed);
  }
  VerifyResult result;
  for (std::size_t n = 0; n < cases.size(); ++n) {
    std::mt19937_64 rng(cases[n].second);
    const auto outcome = check(cases[n].first, rng);
    if (outcome.status != jobs::Status::ok) {
      result.status = outcome.status;
      result.evidence = outcome.evidence;
      result.failed_case = case_text(cases[n].first.case_keys(), cases[n].second, cases[n].first.inputs);
      if (n >= standard.size()) result.evidence += "\ncaught by the campaign's validation set: " + result.failed_case;
      return result;
    }
    if (n == 0) {
      result.max_abs_error = outcome.max_abs_error;
      result.max_rel_error = outcome.max_rel_error;
    }
  }
  result.status = jobs::Status::ok;
  return result;
}

}  // namespace kforge::kernels
