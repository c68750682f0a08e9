#include "kforge/scheduler/generation_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <random>
#include <stdexcept>

#include "kforge/scheduler/population.hpp"

namespace kforge::scheduler {

std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  auto splitmix = [](std::uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  };
  return splitmix(splitmix(splitmix(seed) ^ a) ^ b);
}

namespace {

std::vector<Member> parents_of_island(const ArchiveView& archive, int island) {
  std::vector<Member> parents;
  for (const auto& entry : archive.last_population(island)) {
    const jobs::Candidate* c = archive.candidate(entry.candidate_id);
    if (!c) {
      throw std::runtime_error("population entry " + entry.candidate_id +
                               " names a candidate that no generation file holds: the archive is inconsistent");
    }
    parents.push_back(Member{*c, entry.fitness_ms});
  }
  return parents;
}

std::vector<jobs::Candidate> breed_island(const CampaignConfig& campaign, const SearchSpace& space,
                                          const ArchiveView& archive, int generation, int island) {
  const std::string& target = campaign.targets.at(static_cast<size_t>(island));
  std::mt19937_64 rng(mix_seed(campaign.search.seed, static_cast<std::uint64_t>(generation),
                               static_cast<std::uint64_t>(island)));
  std::set<std::string> seen = archive.evaluated_ids(target);
  const CandidateTemplate tmpl{campaign.family, campaign.backend, campaign.compile_flags};
  std::vector<jobs::Candidate> children;
  if (generation == 0) {
    int count = std::max(campaign.search.population, campaign.search.offspring);
    children = initial_candidates(space, count, tmpl, island, seen, rng);
  } else {
    children = breed(space, parents_of_island(archive, island), campaign.search.offspring, campaign.search, tmpl,
                     generation, island, seen, rng);
  }
  for (auto& c : children) {
    c.generation = generation;
    c.island = island;
  }
  return children;
}

}  // namespace

std::vector<jobs::TaskManifest> split_into_tasks(const CampaignConfig& campaign, const SiteConfig& site,
                                                 int generation, int island,
                                                 const std::vector<jobs::Candidate>& candidates, int first_task) {
  const size_t per_task = static_cast<size_t>(std::max(1, site.ranks_per_task()) *
                                              std::max(1, campaign.candidates_per_rank));
  std::vector<jobs::TaskManifest> tasks;
  for (size_t begin = 0; begin < candidates.size(); begin += per_task) {
    jobs::TaskManifest m;
    m.campaign = campaign.name;
    m.generation = generation;
    m.island = island;
    m.task = first_task + static_cast<int>(tasks.size());
    m.target = campaign.targets.at(static_cast<size_t>(island));
    m.family = campaign.family;
    m.backend = campaign.backend;
    m.seed = mix_seed(campaign.search.seed ^ 0x6b666f7267650000ULL, static_cast<std::uint64_t>(generation),
                      static_cast<std::uint64_t>(m.task));
    m.settings = campaign.eval;
    const size_t end = std::min(candidates.size(), begin + per_task);
    m.candidates.assign(candidates.begin() + static_cast<std::ptrdiff_t>(begin),
                        candidates.begin() + static_cast<std::ptrdiff_t>(end));
    char shard[32];
    std::snprintf(shard, sizeof shard, "../shards/%04d.h5", m.task);
    m.shard_path = shard;
    tasks.push_back(std::move(m));
  }
  return tasks;
}

std::vector<jobs::TaskManifest> plan_generation(const CampaignConfig& campaign, const SiteConfig& site,
                                                const SearchSpace& space, const ArchiveView& archive,
                                                int generation) {
  std::vector<jobs::TaskManifest> tasks;
  for (int island = 0; island < static_cast<int>(campaign.targets.size()); ++island) {
    auto children = breed_island(campaign, space, archive, generation, island);
    auto island_tasks = split_into_tasks(campaign, site, generation, island, children,
                                         static_cast<int>(tasks.size()));
    tasks.insert(tasks.end(), island_tasks.begin(), island_tasks.end());
  }
  return tasks;
}

}  // namespace kforge::scheduler
