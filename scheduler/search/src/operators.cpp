// Built-in variation operators: mutation, uniform crossover, random immigrants; tournament picks.
#include "operators.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace kforge::scheduler::operators {
namespace {

double fitness_key(const Member& m) {
  return std::isnan(m.fitness_ms) ? std::numeric_limits<double>::infinity() : m.fitness_ms;
}

std::size_t uniform_index(std::size_t n, std::mt19937_64& rng) {
  return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng);
}

// A new index into a list of n >= 2 values, different from `current`: half the time an adjacent one (value
// lists are usually ordered, so this is a small step), otherwise any other.
std::size_t other_index(std::size_t current, std::size_t n, std::mt19937_64& rng) {
  if (std::bernoulli_distribution(0.5)(rng)) {
    if (current == 0) return 1;
    if (current == n - 1) return n - 2;
    return std::bernoulli_distribution(0.5)(rng) ? current - 1 : current + 1;
  }
  const std::size_t r = uniform_index(n - 1, rng);
  return r >= current ? r + 1 : r;
}

}  // namespace

jobs::Candidate make_candidate(const Context& ctx, jobs::Genome g, const std::string& op,
                               std::vector<std::string> parents) {
  jobs::Candidate c;
  c.family = ctx.tmpl.family;
  c.backend = ctx.tmpl.backend;
  c.compile_flags = ctx.tmpl.compile_flags;
  c.genome = std::move(g);
  c.parents = std::move(parents);
  c.op = op;
  c.generation = ctx.generation;
  c.island = ctx.island;
  jobs::assign_id(c);
  return c;
}

std::optional<jobs::Candidate> claim(Context& ctx, jobs::Genome g, const std::string& op,
                                     std::vector<std::string> parents) {
  if (!ctx.space.contains(g)) return std::nullopt;
  jobs::Candidate c = make_candidate(ctx, std::move(g), op, std::move(parents));
  if (!ctx.seen.insert(c.id).second) return std::nullopt;
  return c;
}

std::size_t tournament(const std::vector<Member>& members, int size, std::mt19937_64& rng, std::size_t exclude) {
  std::vector<std::size_t> eligible;
  for (std::size_t i = 0; i < members.size(); ++i)
    if (i != exclude) eligible.push_back(i);
  if (eligible.empty()) return 0;  // only `exclude` exists
  const std::size_t draws = std::min(eligible.size(), static_cast<std::size_t>(std::max(size, 1)));
  std::size_t best = members.size();
  for (std::size_t d = 0; d < draws; ++d) {  // partial Fisher-Yates: distinct contestants
    std::swap(eligible[d], eligible[d + uniform_index(eligible.size() - d, rng)]);
    const std::size_t i = eligible[d];
    if (best == members.size() || fitness_key(members[i]) < fitness_key(members[best])) best = i;
  }
  return best;
}

jobs::Genome mutate(const std::vector<ParameterSpec>& parameters, const jobs::Genome& parent, std::mt19937_64& rng) {
  std::vector<const ParameterSpec*> changeable;
  for (const ParameterSpec& p : parameters)
    if (p.values.size() >= 2) changeable.push_back(&p);
  jobs::Genome child = parent;
  if (changeable.empty()) return child;
  const std::size_t changes = std::min<std::size_t>(changeable.size(), 1 + uniform_index(2, rng));
  for (std::size_t k = 0; k < changes; ++k) {
    std::swap(changeable[k], changeable[k + uniform_index(changeable.size() - k, rng)]);
    const ParameterSpec& p = *changeable[k];
    const auto old = parent.params.find(p.name);
    const auto pos =
        old == parent.params.end() ? p.values.end() : std::find(p.values.begin(), p.values.end(), old->second);
    const std::size_t next = pos == p.values.end()
                                 ? uniform_index(p.values.size(), rng)
                                 : other_index(static_cast<std::size_t>(pos - p.values.begin()), p.values.size(), rng);
    child.params[p.name] = p.values[next];
  }
  return child;
}

jobs::Genome cross(const jobs::Genome& a, const jobs::Genome& b, std::mt19937_64& rng) {
  jobs::Genome child = a;
  std::bernoulli_distribution from_b(0.5);
  for (const auto& [name, value] : b.params) {
    if (!child.has(name) || from_b(rng)) child.params[name] = value;
  }
  return child;
}

std::optional<jobs::Candidate> FreshGenomes::next(const std::string& op) {
  for (int attempt = 0; attempt < kAttempts && !enumerated_; ++attempt) {
    jobs::Genome g;
    try {
      g = ctx_.space.random_genome(ctx_.rng);
    } catch (const std::runtime_error&) {
      if (ctx_.space.cardinality() > kEnumerationLimit) throw;  // nothing valid found, and too large to list
      break;
    }
    if (auto c = claim(ctx_, std::move(g), op, {})) return c;
  }
  if (!enumerated_) enumerate();
  while (!unseen_.empty()) {
    const std::size_t i = uniform_index(unseen_.size(), ctx_.rng);
    jobs::Genome g = std::move(unseen_[i]);
    unseen_[i] = std::move(unseen_.back());
    unseen_.pop_back();
    if (auto c = claim(ctx_, std::move(g), op, {})) return c;  // other operators may have claimed it since
  }
  return std::nullopt;
}

// Lists every valid genome whose candidate id is not yet seen (odometer over the value lists).
void FreshGenomes::enumerate() {
  enumerated_ = true;
  if (ctx_.space.cardinality() > kEnumerationLimit) return;  // treated as exhausted: see kEnumerationLimit
  const std::vector<ParameterSpec>& params = ctx_.space.parameters();
  std::vector<std::size_t> index(params.size(), 0);
  std::size_t valid = 0;
  while (true) {
    jobs::Genome g;
    for (std::size_t p = 0; p < params.size(); ++p) g.params[params[p].name] = params[p].values[index[p]];
    if (ctx_.space.contains(g)) {
      ++valid;
      if (ctx_.seen.count(make_candidate(ctx_, g, "", {}).id) == 0) unseen_.push_back(std::move(g));
    }
    std::size_t p = 0;
    while (p < params.size() && ++index[p] == params[p].values.size()) index[p++] = 0;
    if (p == params.size()) break;
  }
  if (valid == 0)
    throw std::runtime_error("search space: no configuration satisfies the constraints (all " +
                             std::to_string(static_cast<long long>(ctx_.space.cardinality())) +
                             " were checked); relax space.constraints");
}

}  // namespace kforge::scheduler::operators
