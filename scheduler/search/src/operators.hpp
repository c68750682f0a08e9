#pragma once
// Internals of population.cpp: the built-in variation operators and the bookkeeping that keeps every child
// valid and new.
#include <cstddef>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kforge/scheduler/search/population.hpp"

namespace kforge::scheduler::operators {

// How often one operator retries before it falls back to the next (crossover -> mutation -> immigrant).
constexpr int kAttempts = 64;
// Spaces up to this many configurations are enumerated once random draws keep hitting seen ids, so that
// exhaustion is detected exactly; above it, kAttempts seen draws in a row count as exhaustion.
constexpr double kEnumerationLimit = 1 << 21;

struct Context {
  const SearchSpace& space;
  const CandidateTemplate& tmpl;
  int generation;
  int island;
  std::set<std::string>& seen;
  std::mt19937_64& rng;
};

// A candidate of the campaign's template holding `g`, with lineage and id set.
jobs::Candidate make_candidate(const Context& ctx, jobs::Genome g, const std::string& op,
                               std::vector<std::string> parents);
// The candidate for `g` if `g` is in the space and its id is not in ctx.seen (the id is then added).
std::optional<jobs::Candidate> claim(Context& ctx, jobs::Genome g, const std::string& op,
                                     std::vector<std::string> parents);

// Index of the tournament winner (lowest fitness, NaN as +inf) among `size` distinct members drawn uniformly;
// `exclude` (if < members.size()) is never drawn unless it is the only member.
std::size_t tournament(const std::vector<Member>& members, int size, std::mt19937_64& rng,
                       std::size_t exclude = static_cast<std::size_t>(-1));

// `parent` with one or two parameters changed; a neighbour in the value list is preferred half the time.
jobs::Genome mutate(const std::vector<ParameterSpec>& parameters, const jobs::Genome& parent, std::mt19937_64& rng);
// Each parameter from `a` or `b` with equal probability.
jobs::Genome cross(const jobs::Genome& a, const jobs::Genome& b, std::mt19937_64& rng);

// Random valid, unseen genomes: random draws first; when those keep hitting seen ids (or the constraints
// admit too little for random_genome), the unseen rest of the space is enumerated once and drawn from.
class FreshGenomes {
 public:
  explicit FreshGenomes(Context& ctx) : ctx_(ctx) {}
  // A new candidate made by `op` with no parents, or nullopt when the space is exhausted. Throws
  // std::runtime_error when no configuration satisfies the constraints at all.
  std::optional<jobs::Candidate> next(const std::string& op);

 private:
  void enumerate();

  Context& ctx_;
  bool enumerated_ = false;
  std::vector<jobs::Genome> unseen_;
};

}  // namespace kforge::scheduler::operators
