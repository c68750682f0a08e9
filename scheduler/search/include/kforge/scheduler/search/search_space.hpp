#pragma once
// The search space: parameters with value lists and constraints over them.
#include <memory>
#include <random>
#include <vector>

#include "kforge/jobs/genome.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {

class Expression;  // a parsed constraint (expression.hpp)

class SearchSpace {
 public:
  // Parses every constraint; a syntax error or unknown identifier throws ConfigError at the constraint's location.
  explicit SearchSpace(const SpaceSpec& spec);
  ~SearchSpace();
  SearchSpace(SearchSpace&&) noexcept;
  SearchSpace& operator=(SearchSpace&&) noexcept;

  const std::vector<ParameterSpec>& parameters() const { return spec_.parameters; }
  // Every parameter present with one of its listed values, and every constraint true.
  bool contains(const jobs::Genome& g) const;
  // A uniformly drawn valid genome; throws std::runtime_error when none is found in 10,000 draws.
  jobs::Genome random_genome(std::mt19937_64& rng) const;
  // Product of the value-list sizes (an upper bound on the valid configurations).
  double cardinality() const;

 private:
  SpaceSpec spec_;
  std::vector<std::unique_ptr<Expression>> constraints_;
};

}  // namespace kforge::scheduler
