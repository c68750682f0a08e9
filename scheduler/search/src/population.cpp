// Generation-0 candidates and breeding of one island's next candidates.
#include "kforge/scheduler/search/population.hpp"

#include <algorithm>
#include <cmath>

#include "operators.hpp"

namespace kforge::scheduler {
namespace {

using operators::Context;
using operators::FreshGenomes;
using operators::kAttempts;

struct OperatorCounts {
  int mutation = 0;
  int crossover = 0;
  int immigrant = 0;
};

OperatorCounts split(int count, const SearchSpec& search, std::size_t parent_count) {
  OperatorCounts n;
  if (count <= 0 || parent_count == 0) {  // nothing to vary: every child is a random immigrant
    n.immigrant = std::max(count, 0);
    return n;
  }
  const auto share = [&](double rate) { return static_cast<int>(std::lround(count * std::clamp(rate, 0.0, 1.0))); };
  n.mutation = std::min(share(search.mutation_rate), count);
  n.crossover = std::min(share(search.crossover_rate), count - n.mutation);
  n.immigrant = count - n.mutation - n.crossover;
  if (parent_count < 2) {  // crossover of a parent with itself only reproduces it
    n.mutation += n.crossover;
    n.crossover = 0;
  }
  return n;
}

class Breeder {
 public:
  Breeder(Context& ctx, const std::vector<Member>& parents, const SearchSpec& search)
      : ctx_(ctx), parents_(parents), search_(search), fresh_(ctx) {}

  std::optional<jobs::Candidate> mutation() {
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      const Member& parent = parents_[pick()];
      jobs::Genome g = operators::mutate(ctx_.space.parameters(), parent.candidate.genome, ctx_.rng);
      if (auto c = operators::claim(ctx_, std::move(g), "mutation", {parent.candidate.id})) return c;
    }
    return immigrant();
  }

  std::optional<jobs::Candidate> crossover() {
    for (int attempt = 0; attempt < kAttempts; ++attempt) {
      const std::size_t a = pick();
      const std::size_t b = pick(a);
      const jobs::Candidate& pa = parents_[a].candidate;
      const jobs::Candidate& pb = parents_[b].candidate;
      jobs::Genome g = operators::cross(pa.genome, pb.genome, ctx_.rng);
      if (auto c = operators::claim(ctx_, std::move(g), "crossover", {pa.id, pb.id})) return c;
    }
    return mutation();  // parents too alike, or their mixes invalid or already seen
  }

  std::optional<jobs::Candidate> immigrant() { return fresh_.next("immigrant"); }

 private:
  std::size_t pick(std::size_t exclude = static_cast<std::size_t>(-1)) {
    return operators::tournament(parents_, search_.tournament, ctx_.rng, exclude);
  }

  Context& ctx_;
  const std::vector<Member>& parents_;
  const SearchSpec& search_;
  FreshGenomes fresh_;
};

}  // namespace

std::vector<jobs::Candidate> initial_candidates(const SearchSpace& space, int count, const CandidateTemplate& tmpl,
                                                int island, std::set<std::string>& seen, std::mt19937_64& rng) {
  Context ctx{space, tmpl, 0, island, seen, rng};
  FreshGenomes fresh(ctx);
  std::vector<jobs::Candidate> out;
  while (static_cast<int>(out.size()) < count) {
    auto c = fresh.next("init");
    if (!c) break;  // exhausted
    out.push_back(std::move(*c));
  }
  return out;
}

void add_seeded_candidate(std::vector<jobs::Candidate>& out, const CandidateTemplate& tmpl, jobs::Genome g,
                          const std::string& op, int island, std::set<std::string>& seen) {
  jobs::Candidate c;
  c.family = tmpl.family;
  c.backend = tmpl.backend;
  c.compile_flags = tmpl.compile_flags;
  c.genome = std::move(g);
  c.op = op;
  c.generation = 0;
  c.island = island;
  jobs::assign_id(c);
  if (seen.insert(c.id).second) out.push_back(std::move(c));
}

std::vector<jobs::Candidate> initial_genome_candidates(const SearchSpec& search, const CandidateTemplate& tmpl,
                                                       int island, std::set<std::string>& seen) {
  std::vector<jobs::Candidate> out;
  for (const auto& initial : search.initial) add_seeded_candidate(out, tmpl, initial.genome, "initial", island, seen);
  return out;
}

std::vector<jobs::Candidate> breed(const SearchSpace& space, const std::vector<Member>& parents, int count,
                                   const SearchSpec& search, const CandidateTemplate& tmpl, int generation, int island,
                                   std::set<std::string>& seen, std::mt19937_64& rng) {
  Context ctx{space, tmpl, generation, island, seen, rng};
  Breeder breeder(ctx, parents, search);
  const OperatorCounts n = split(count, search, parents.size());
  std::vector<jobs::Candidate> out;
  // Every operator ends in the immigrant fallback, so an empty answer means the space is exhausted.
  const auto add = [&](int how_many, auto make) {
    for (int i = 0; i < how_many; ++i) {
      auto c = make();
      if (!c) return false;
      out.push_back(std::move(*c));
    }
    return true;
  };
  if (add(n.mutation, [&] { return breeder.mutation(); }) && add(n.crossover, [&] { return breeder.crossover(); }))
    add(n.immigrant, [&] { return breeder.immigrant(); });
  return out;
}

}  // namespace kforge::scheduler
