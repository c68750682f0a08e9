#pragma once
// Population, built-in variation operators and selection for one island.
#include <random>
#include <set>
#include <string>
#include <vector>

#include "kforge/jobs/candidate.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/search/search_space.hpp"

namespace kforge::scheduler {

struct Member {
  jobs::Candidate candidate;
  double fitness_ms = 0.0;  // jobs::fitness_ms of its record: +inf for failures
};

// What every candidate of the campaign shares.
struct CandidateTemplate {
  std::string family;
  std::string backend;
  std::string compile_flags;
};

// Generation-0 candidates: `count` distinct random valid genomes (op "init"). Ids already in `seen` are
// skipped and new ids are added to it. Returns fewer than count only when the space is exhausted.
std::vector<jobs::Candidate> initial_candidates(const SearchSpace& space, int count, const CandidateTemplate& tmpl,
                                                int island, std::set<std::string>& seen, std::mt19937_64& rng);

// A parentless generation-0 candidate of genome `g` made by `op` ("initial", "prior", ...), added to `out` unless
// its id is in `seen` (which is extended).
void add_seeded_candidate(std::vector<jobs::Candidate>& out, const CandidateTemplate& tmpl, jobs::Genome g,
                          const std::string& op, int island, std::set<std::string>& seen);

// The genomes of search.initial (op "initial"), in the order written, except ids already in `seen` (which is
// extended): what the user knows is evaluated before anything is drawn.
std::vector<jobs::Candidate> initial_genome_candidates(const SearchSpec& search, const CandidateTemplate& tmpl,
                                                       int island, std::set<std::string>& seen);

// `count` children of `parents` by mutation (op "mutation", one parent), uniform crossover ("crossover", two
// parents) and random immigrants ("immigrant", no parent) in the proportions of SearchSpec. Parents are picked
// by tournament. Every child is valid in the space and has an id not in `seen` (dedup: a candidate is never
// evaluated twice); `seen` is extended. Returns fewer than count only when the space is exhausted.
std::vector<jobs::Candidate> breed(const SearchSpace& space, const std::vector<Member>& parents, int count,
                                   const SearchSpec& search, const CandidateTemplate& tmpl, int generation, int island,
                                   std::set<std::string>& seen, std::mt19937_64& rng);

// Elitist + tournament selection: the `search.elite` fittest always survive, the rest of `search.population`
// slots are filled by tournaments of size `search.tournament` without replacement. Failures (+inf) survive only
// when there are not enough ok members.
std::vector<Member> select_survivors(std::vector<Member> pool, const SearchSpec& search, std::mt19937_64& rng);

}  // namespace kforge::scheduler
