// The search space: membership, uniform random valid genomes, size.
#include "kforge/scheduler/search/search_space.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "kforge/scheduler/search/expression.hpp"

namespace kforge::scheduler {
namespace {

constexpr int kRandomDraws = 10000;

const char* const kExpressionSyntax =
    "a Python-like expression over the parameters: numbers, 'strings', True/False, + - * / // % **, "
    "== != < <= > >=, in [..], and/or/not (&& || !), parentheses";

NameKinds kinds_of(const std::vector<ParameterSpec>& parameters) {
  NameKinds kinds;
  for (const ParameterSpec& p : parameters) {
    unsigned k = 0;
    for (const jobs::ParamValue& v : p.values) k |= kind_of(v);
    kinds[p.name] = k;
  }
  return kinds;
}

std::string parameter_names(const std::vector<ParameterSpec>& parameters) {
  std::string out;
  for (const ParameterSpec& p : parameters) out += (out.empty() ? "" : ", ") + p.name;
  return out.empty() ? "(none: space.parameters is empty)" : out;
}

std::unique_ptr<Expression> parse_constraint(const ConstraintSpec& c, std::size_t index, const NameKinds& kinds,
                                             const std::vector<ParameterSpec>& parameters) {
  const std::string key = "space.constraints[" + std::to_string(index) + "]";
  try {
    return std::make_unique<Expression>(c.expression, kinds);
  } catch (const ExpressionError& e) {
    const bool unknown_name = e.problem().rfind("unknown parameter", 0) == 0;
    // For an unknown name the known ones go in the "allowed" part of the message, once.
    const std::string problem = unknown_name ? e.problem().substr(0, e.problem().find("; known")) : e.problem();
    // A hostile expression can be megabytes long: the message quotes its start.
    const std::string shown = c.expression.size() > 120 ? c.expression.substr(0, 120) + "..." : c.expression;
    throw ConfigError(c.where, key, "\"" + shown + "\": column " + std::to_string(e.column()) + ": " + problem,
                      unknown_name ? "a parameter of space.parameters: " + parameter_names(parameters)
                                   : std::string(kExpressionSyntax));
  }
}

}  // namespace

SearchSpace::SearchSpace(const SpaceSpec& spec) : spec_(spec) {
  for (const ParameterSpec& p : spec_.parameters) {
    if (p.values.empty())  // random_genome could not draw from it
      throw ConfigError(p.where, "space.parameters." + p.name, "has no values", "a non-empty list of values");
  }
  const NameKinds kinds = kinds_of(spec_.parameters);
  for (std::size_t i = 0; i < spec_.constraints.size(); ++i)
    constraints_.push_back(parse_constraint(spec_.constraints[i], i, kinds, spec_.parameters));
}

SearchSpace::~SearchSpace() = default;
SearchSpace::SearchSpace(SearchSpace&&) noexcept = default;
SearchSpace& SearchSpace::operator=(SearchSpace&&) noexcept = default;

bool SearchSpace::contains(const jobs::Genome& g) const {
  if (g.params.size() != spec_.parameters.size()) return false;
  for (const ParameterSpec& p : spec_.parameters) {
    const auto it = g.params.find(p.name);
    if (it == g.params.end() || std::find(p.values.begin(), p.values.end(), it->second) == p.values.end()) return false;
  }
  return std::all_of(constraints_.begin(), constraints_.end(),
                     [&](const std::unique_ptr<Expression>& c) { return c->holds(g); });
}

jobs::Genome SearchSpace::random_genome(std::mt19937_64& rng) const {
  jobs::Genome g;
  for (int draw = 0; draw < kRandomDraws; ++draw) {
    for (const ParameterSpec& p : spec_.parameters) {
      std::uniform_int_distribution<std::size_t> pick(0, p.values.size() - 1);
      g.params[p.name] = p.values[pick(rng)];
    }
    const bool valid = std::all_of(constraints_.begin(), constraints_.end(),
                                   [&](const std::unique_ptr<Expression>& c) { return c->holds(g); });
    if (valid) return g;
  }
  std::string listed;
  for (const ConstraintSpec& c : spec_.constraints) listed += (listed.empty() ? "\"" : ", \"") + c.expression + "\"";
  throw std::runtime_error(
      "search space: no genome satisfied the constraints in " + std::to_string(kRandomDraws) + " random draws out of " +
      std::to_string(static_cast<long long>(cardinality())) +
      " configurations; the constraints are probably unsatisfiable (or admit almost nothing): " + listed);
}

double SearchSpace::cardinality() const {
  double n = 1.0;
  for (const ParameterSpec& p : spec_.parameters) n *= static_cast<double>(p.values.size());
  return n;
}

}  // namespace kforge::scheduler
