// Constraint expressions (expression.hpp): any text either parses and checks or throws ExpressionError; a parsed
// expression evaluates against genomes of every kind of value, throwing at most std::domain_error (division by
// zero), and holds() never throws.
#include <optional>
#include <stdexcept>
#include <vector>

#include "fuzz_support.hpp"
#include "kforge/scheduler/search/expression.hpp"

namespace {

using kforge::scheduler::NameKinds;

const NameKinds& names() {
  using namespace kforge::scheduler;
  static const NameKinds kinds = {{"MC", kind_int},       {"NR", kind_int},    {"ALPHA", kind_double},
                                  {"ORDER", kind_string}, {"PACK", kind_bool}, {"X", kind_int | kind_string},
                                  {"N", kind_number}};
  return kinds;
}

// Two genomes: ordinary values, and extremes (zeros, INT64_MIN, 1e308, empty strings) that make divisions fail
// and arithmetic overflow, which UBSan would report.
const std::vector<kforge::jobs::Genome>& genomes() {
  static const std::vector<kforge::jobs::Genome> all = [] {
    kforge::jobs::Genome a;
    a.params = {{"MC", std::int64_t{64}},      {"NR", std::int64_t{8}}, {"ALPHA", 0.5},
                {"ORDER", std::string("jpi")}, {"PACK", true},          {"X", std::string("x")},
                {"N", std::int64_t{-3}}};
    kforge::jobs::Genome b;
    b.params = {{"MC", std::int64_t{0}},
                {"NR", std::int64_t{-9223372036854775807LL - 1}},
                {"ALPHA", 0.0},
                {"ORDER", std::string()},
                {"PACK", false},
                {"X", std::int64_t{0}},
                {"N", 1e308}};
    return std::vector<kforge::jobs::Genome>{a, b};
  }();
  return all;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::optional<kforge::scheduler::Expression> expression;
  try {
    expression.emplace(kforge::fuzz::text_of(data, size), names());
  } catch (const kforge::scheduler::ExpressionError&) {
    return 0;  // the documented outcome of a bad expression
  }
  for (const auto& genome : genomes()) {
    try {
      (void)expression->evaluate(genome);
    } catch (const std::domain_error&) {
      // division by zero: documented
    }
    try {
      (void)expression->holds(genome);
    } catch (const std::exception& e) {
      kforge::fuzz::contract_broken(std::string("holds() threw: ") + e.what());
    }
  }
  return 0;
}
