#pragma once
// A validation case as text: the sizes and the inputs' seed of one verification check, and optionally its
// adversarial input class ("M=7 N=5 K=3 lda=3 ldb=5 ldc=5 inputs=huge seed=123"). A backend reports the case
// that caught a wrong candidate in this form (VerifyResult.failed_case); the scheduler stores it in the archive's
// /validation and hands it to every later task's manifest (EvalSettings.validation_cases), and the backend of the
// same family checks it again with exactly those inputs.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace kforge::jobs {

using CaseKeys = std::vector<std::pair<std::string, std::int64_t>>;  // a shape's sizes, in the family's order

struct ParsedCase {
  std::map<std::string, std::int64_t> keys;  // without the seed and the input class
  std::string inputs;                        // the input class; "" for the family's ordinary inputs
  std::uint64_t seed = 0;
};

// "M=7 N=5 ... seed=123", with "inputs=NAME " before the seed for an input class other than the ordinary one.
std::string case_text(const CaseKeys& keys, std::uint64_t seed, const std::string& inputs = {});
// nullopt unless the text is space-separated KEY=INTEGER pairs with a seed, and at most one inputs=NAME
// (NAME: 1 to 32 lower-case letters, digits and '_').
std::optional<ParsedCase> parse_case(std::string_view text);
// The inputs' seed of standard check n of a candidate with context seed `seed`: a stream per check.
std::uint64_t standard_case_seed(std::uint64_t seed, std::size_t n);

}  // namespace kforge::jobs
