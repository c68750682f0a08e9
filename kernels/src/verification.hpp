#pragma once
// verify() of the host families: the family's standard shapes, then every case of the campaign's validation
// set (EvalSettings.validation_cases). Each check draws its inputs from its own seed, so the case that caught a
// wrong candidate ("M=7 N=5 K=3 lda=3 ldb=5 ldc=5 seed=123") reproduces exactly, and is reported in
// VerifyResult.failed_case for the scheduler to add to the validation set.
#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kforge/kernels/backend.hpp"

namespace kforge::kernels {

using CaseKeys = std::vector<std::pair<std::string, std::int64_t>>;  // a shape's sizes, in the family's order

struct ParsedCase {
  std::map<std::string, std::int64_t> keys;  // without the seed
  std::uint64_t seed = 0;
};

std::string case_text(const CaseKeys& keys, std::uint64_t seed);  // "M=7 N=5 ... seed=123"
// nullopt unless the text is space-separated KEY=INTEGER pairs with a seed.
std::optional<ParsedCase> parse_case(std::string_view text);
// The inputs' seed of standard shape n of a candidate with context seed `seed`.
std::uint64_t standard_case_seed(std::uint64_t seed, std::size_t n);

// Shape needs: CaseKeys case_keys() const; static std::optional<Shape> from_case(const std::map<...>&) (nullopt
// for a case of another family or sizes out of bounds). check(shape, rng) returns an outcome with status,
// max_abs_error, max_rel_error and evidence. The error figures reported are those of the first (main) shape.
template <class Shape, class Check>
VerifyResult verify_with_cases(const std::vector<Shape>& standard, const jobs::EvalSettings& settings,
                               std::uint64_t seed, Check check) {
  std::vector<std::pair<Shape, std::uint64_t>> cases;
  for (std::size_t n = 0; n < standard.size(); ++n) cases.emplace_back(standard[n], standard_case_seed(seed, n));
  for (const std::string& text : settings.validation_cases) {
    const std::optional<ParsedCase> parsed = parse_case(text);
    if (!parsed) continue;  // not this family's: nothing to reproduce here
    if (std::optional<Shape> shape = Shape::from_case(parsed->keys)) cases.emplace_back(*shape, parsed->seed);
  }
  VerifyResult result;
  for (std::size_t n = 0; n < cases.size(); ++n) {
    std::mt19937_64 rng(cases[n].second);
    const auto outcome = check(cases[n].first, rng);
    if (outcome.status != jobs::Status::ok) {
      result.status = outcome.status;
      result.evidence = outcome.evidence;
      result.failed_case = case_text(cases[n].first.case_keys(), cases[n].second);
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
