#pragma once
// One generation as work: breed each island's candidates and split them into task manifests.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kforge/jobs/manifest.hpp"
#include "kforge/scheduler/agents/agent_launch.hpp"
#include "kforge/scheduler/config/archive_view.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/search/search_space.hpp"

namespace kforge::scheduler {

// What one agent operator did for one island of a generation (written to AGENT_DIR/outcome.txt as well).
struct AgentReport {
  std::string agent;
  int island = 0;
  std::string status;  // ok, crashed, timed_out, malformed
  int accepted = 0;    // children that became candidates (valid, not seen before)
  int rejected = 0;    // entries refused, with reasons in the evidence
  std::string evidence;
};

// Deterministic in (config, archive, generation) for the built-in operators: a driver killed before the
// manifests were complete plans the same work again. Agent operators (campaign.agents, from generation 1 on)
// run in agents_dir/<agent>-island<k>, started by `agent_launcher` (empty: local processes); their failures
// are reported in `agent_reports`, never thrown.
std::vector<jobs::TaskManifest> plan_generation(const CampaignConfig& campaign, const SiteConfig& site,
                                                const SearchSpace& space, const ArchiveView& archive, int generation,
                                                const std::filesystem::path& agents_dir = {},
                                                std::vector<AgentReport>* agent_reports = nullptr,
                                                const AgentLauncher& agent_launcher = {});

// Splits one island's candidates into tasks of ranks_per_task x candidates_per_rank; task numbers start at
// first_task. Shard paths are relative to the manifest ("../shards/TTTT.h5").
std::vector<jobs::TaskManifest> split_into_tasks(const CampaignConfig& campaign, const SiteConfig& site, int generation,
                                                 int island, const std::vector<jobs::Candidate>& candidates,
                                                 int first_task);

}  // namespace kforge::scheduler
