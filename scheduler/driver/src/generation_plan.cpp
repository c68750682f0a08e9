#include "kforge/scheduler/driver/generation_plan.hpp"

#include <algorithm>
#include <cstdio>
#include <map>
#include <random>
#include <stdexcept>

#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/agents/agent_runner.hpp"
#include "kforge/scheduler/driver/engine_kernel_import.hpp"
#include "kforge/scheduler/learning/learning.hpp"
#include "kforge/scheduler/search/mix_seed.hpp"
#include "kforge/scheduler/search/population.hpp"
#include "kforge/scheduler/search/prior_use.hpp"
#include "kforge/scheduler/search/strategy_children.hpp"
#include "kforge/scheduler/search/strategy_prior_sources.hpp"

namespace kforge::scheduler {

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

// The built-in operators' rates among themselves, from their adaptive shares (learning.hpp).
SearchSpec builtin_rates(SearchSpec search, const std::map<std::string, double>& shares) {
  const double mutation = shares.at("mutation"), crossover = shares.at("crossover");
  const double total = mutation + crossover + shares.at("immigrant");
  if (total <= 0.0) return search;
  search.mutation_rate = mutation / total;
  search.crossover_rate = crossover / total;
  return search;
}

// The brief an agent reads: the island's survivors, best first, with their evaluated sources and records.
AgentBrief brief_for(const CampaignConfig& campaign, const ArchiveView& archive, const std::vector<Member>& parents,
                     int generation, int island, int wanted) {
  AgentBrief brief;
  brief.campaign = campaign.name;
  brief.family = campaign.family;
  brief.backend = campaign.backend;
  brief.target = campaign.targets.at(static_cast<size_t>(island));
  brief.generation = generation;
  brief.island = island;
  brief.children_wanted = wanted;
  brief.space = campaign.space;
  brief.lessons = archive.lessons().summary;
  std::vector<Member> sorted = parents;
  std::stable_sort(sorted.begin(), sorted.end(),
                   [](const Member& a, const Member& b) { return a.fitness_ms < b.fitness_ms; });
  for (const auto& m : sorted) {
    BriefParent p{m.candidate, {}};
    if (const jobs::EvalRecord* r = archive.record(m.candidate.id, brief.target)) {
      p.record = *r;
      if (p.candidate.source.empty()) p.candidate.source = r->source;  // what was compiled: an agent edits that
    }
    brief.parents.push_back(std::move(p));
  }
  return brief;
}

// Runs every agent of the campaign for one island; returns their new, valid, unseen children.
std::vector<jobs::Candidate> agent_children(const CampaignConfig& campaign, const SearchSpace& space,
                                            const ArchiveView& archive, const std::vector<Member>& parents,
                                            int generation, int island, std::set<std::string>& seen,
                                            const std::filesystem::path& agents_dir,
                                            const std::map<std::string, double>& shares,
                                            std::vector<AgentReport>* reports, const AgentLauncher& launcher) {
  std::vector<jobs::Candidate> out;
  const CandidateTemplate tmpl{campaign.family, campaign.backend, campaign.compile_flags};
  for (const auto& agent : campaign.agents) {
    const double share = shares.at("agent:" + agent.name);
    const int wanted = std::max(1, static_cast<int>(share * campaign.search.offspring + 0.5));
    const AgentBrief brief = brief_for(campaign, archive, parents, generation, island, wanted);
    const AgentSpec spec{agent.name, agent.command, agent.timeout_s,
                         agents_dir / (agent.name + "-island" + std::to_string(island)), launcher};
    const AgentOutcome outcome = run_agent(spec, brief, space);
    AgentReport report{
        agent.name,      island, std::string(to_string(outcome.status)), 0, static_cast<int>(outcome.rejected.size()),
        outcome.evidence};
    for (auto& c : agent_candidates(outcome.children, brief, agent.name, tmpl)) {
      if (report.accepted >= wanted || !seen.insert(c.id).second) continue;  // dedup: never evaluated twice
      c.generation = generation;
      c.island = island;
      out.push_back(std::move(c));
      ++report.accepted;
    }
    jobs::write_text_file_atomically(spec.working_dir / "outcome.txt",
                                     "status: " + report.status + "\naccepted: " + std::to_string(report.accepted) +
                                         "\nrejected: " + std::to_string(report.rejected) + "\n" + report.evidence +
                                         "\n");
    if (reports) reports->push_back(std::move(report));
  }
  return out;
}

// The evolutionary strategy's warm start: generation 0 begins with the configurations search.prior (the catalog's
// earlier campaigns by default) ranks best (op "prior"); the rest is drawn at random as in a cold start, so a
// misleading prior costs at most these few evaluations. The surrogate strategy weighs the prior itself.
std::vector<jobs::Candidate> prior_seed_candidates(const CampaignConfig& campaign, const SearchSpace& space,
                                                   const CandidateTemplate& tmpl, int island,
                                                   std::set<std::string>& seen, int count) {
  if (campaign.search.prior.empty()) return {};
  const auto valid = [&space](const jobs::Genome& g) { return space.contains(g); };
  std::vector<jobs::Candidate> out;
  for (const PriorPick& pick : best_of_priors(read_search_prior(campaign.search.prior), valid, count))
    add_seeded_candidate(out, tmpl, pick.genome, "prior", island, seen);
  return out;
}

std::vector<jobs::Candidate> breed_island(const CampaignConfig& campaign, const SearchSpace& space,
                                          const ArchiveView& archive, int generation, int island,
                                          const std::filesystem::path& agents_dir, std::vector<AgentReport>* reports,
                                          const AgentLauncher& launcher) {
  const std::string& target = campaign.targets.at(static_cast<size_t>(island));
  std::mt19937_64 rng(
      mix_seed(campaign.search.seed, static_cast<std::uint64_t>(generation), static_cast<std::uint64_t>(island)));
  std::set<std::string> seen = archive.evaluated_ids(target);
  const CandidateTemplate tmpl{campaign.family, campaign.backend, campaign.compile_flags};
  std::vector<jobs::Candidate> children;
  const bool evolutionary = campaign.search.strategy == "evolutionary";
  if (generation == 0) {
    int count = std::max(campaign.search.population, campaign.search.offspring);
    // The genomes the user wrote (search.initial) come first, then engines built on the best kernels of earlier
    // gemm campaigns (engine.kernels_from).
    children = initial_genome_candidates(campaign.search, tmpl, island, seen);
    auto imported = imported_kernel_candidates(campaign, space, tmpl, island, seen, rng);
    children.insert(children.end(), imported.begin(), imported.end());
    if (evolutionary) {
      auto seeded = prior_seed_candidates(campaign, space, tmpl, island, seen, std::max(1, count / 4));
      children.insert(children.end(), seeded.begin(), seeded.end());
    }
    count = std::max(0, count - static_cast<int>(children.size()));
    auto fresh = evolutionary ? initial_candidates(space, count, tmpl, island, seen, rng)
                              : strategy_children(campaign, space, archive, generation, island, count, seen);
    children.insert(children.end(), fresh.begin(), fresh.end());
  } else {
    const std::vector<Member> parents = parents_of_island(archive, island);
    const std::map<std::string, double> shares = operator_shares(campaign, archive, island);
    if (!campaign.agents.empty() && !agents_dir.empty()) {
      children = agent_children(campaign, space, archive, parents, generation, island, seen, agents_dir, shares,
                                reports, launcher);
    }
    const int builtin = std::max(0, campaign.search.offspring - static_cast<int>(children.size()));
    auto bred = evolutionary ? breed(space, parents, builtin, builtin_rates(campaign.search, shares), tmpl, generation,
                                     island, seen, rng)
                             : strategy_children(campaign, space, archive, generation, island, builtin, seen);
    children.insert(children.end(), bred.begin(), bred.end());
  }
  for (auto& c : children) {
    c.generation = generation;
    c.island = island;
  }
  return children;
}

}  // namespace

std::vector<jobs::TaskManifest> split_into_tasks(const CampaignConfig& campaign, const SiteConfig& site, int generation,
                                                 int island, const std::vector<jobs::Candidate>& candidates,
                                                 int first_task) {
  const std::string& island_target = campaign.targets.at(static_cast<size_t>(island));
  const size_t per_task =
      static_cast<size_t>(std::max(1, site.ranks_per_task(island_target)) * std::max(1, campaign.candidates_per_rank));
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
                                                const SearchSpace& space, const ArchiveView& archive, int generation,
                                                const std::filesystem::path& agents_dir,
                                                std::vector<AgentReport>* agent_reports,
                                                const AgentLauncher& agent_launcher) {
  std::vector<jobs::TaskManifest> tasks;
  std::vector<std::string> validation_cases;
  for (const auto& c : archive.validation_set()) validation_cases.push_back(c.text);
  for (int island = 0; island < static_cast<int>(campaign.targets.size()); ++island) {
    auto children =
        breed_island(campaign, space, archive, generation, island, agents_dir, agent_reports, agent_launcher);
    auto island_tasks = split_into_tasks(campaign, site, generation, island, children, static_cast<int>(tasks.size()));
    for (auto& t : island_tasks) t.settings.validation_cases = validation_cases;
    tasks.insert(tasks.end(), island_tasks.begin(), island_tasks.end());
  }
  return tasks;
}

}  // namespace kforge::scheduler
