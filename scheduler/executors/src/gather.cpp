#include "kforge/scheduler/executors/gather.hpp"

#include <exception>
#include <stdexcept>

#include "kforge/jobs/archive_binding.hpp"

namespace kforge::scheduler {

jobs::Shard read_task_shard(const CampaignDir& dir, const jobs::TaskManifest& task) {
  const auto path = dir.shard(task.generation, task.task);
  jobs::Shard shard =
      jobs::read_shard(path, jobs::FileExpectation{jobs::read_campaign_id(dir.root()), task.generation, task.task, ""});
  if (shard.island != task.island || shard.target != task.target)
    throw std::runtime_error(path.string() + ": reading shard: is the shard of island " + std::to_string(shard.island) +
                             " on '" + shard.target + "', but its manifest's task runs island " +
                             std::to_string(task.island) + " on '" + task.target + "'");
  return shard;
}

std::string shard_problem(const CampaignDir& dir, const jobs::TaskManifest& task) {
  std::error_code ec;
  if (!std::filesystem::exists(dir.shard(task.generation, task.task), ec)) return "";
  try {
    (void)read_task_shard(dir, task);
    return "";
  } catch (const std::exception& e) {
    return e.what();
  }
}

bool shard_is_usable(const CampaignDir& dir, const jobs::TaskManifest& task) {
  try {
    (void)read_task_shard(dir, task);
    return true;
  } catch (const std::exception&) {
    return false;
  }
}

jobs::EvalRecord infra_error_record(const jobs::Candidate& c, const jobs::TaskManifest& task, const std::string& why) {
  jobs::EvalRecord r = jobs::record_for(c, task);
  r.generation = task.generation;
  r.island = task.island;
  r.status = jobs::Status::infra_error;
  r.host = jobs::host_name();
  r.evaluated_at = jobs::iso8601_now();
  r.evidence = "task " + std::to_string(task.task) + " of generation " + std::to_string(task.generation) +
               " produced no usable record: " + why;
  r.source = c.source;
  return r;
}

Gathered gather_shards(const CampaignDir& dir, const std::vector<jobs::TaskManifest>& tasks,
                       const std::map<int, std::string>& failed_tasks) {
  Gathered out;
  for (const auto& task : tasks) {
    std::map<std::string, jobs::EvalRecord> by_id;
    std::string why;
    try {
      jobs::Shard shard = read_task_shard(dir, task);
      for (auto& r : shard.records) by_id.emplace(r.candidate_id, std::move(r));
      out.baselines.insert(out.baselines.end(), shard.baselines.begin(), shard.baselines.end());
    } catch (const std::exception& e) {
      auto failed = failed_tasks.find(task.task);
      why = (failed != failed_tasks.end() ? failed->second + "; " : std::string()) + e.what();
    }
    for (const auto& c : task.candidates) {
      auto it = by_id.find(c.id);
      if (it != by_id.end()) {
        out.records.push_back(std::move(it->second));
      } else {
        out.records.push_back(infra_error_record(c, task, why.empty() ? "the shard has no record of it" : why));
        ++out.infra_errors;
      }
    }
  }
  return out;
}

}  // namespace kforge::scheduler
