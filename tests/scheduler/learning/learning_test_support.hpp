#pragma once
// Small archives built in memory for the learning tests: records with a genome, an op, parents and a time.
#include <cmath>
#include <string>
#include <vector>

#include "kforge/jobs/archive.hpp"
#include "kforge/scheduler/config/archive_view.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler::testing {

inline jobs::EvalRecord record(const std::string& id, const std::string& op, std::vector<std::string> parents,
                               double time_ms, const std::string& params = "A=1", int generation = 0) {
  jobs::EvalRecord r;
  r.candidate_id = id;
  r.op = op;
  r.parents = std::move(parents);
  r.params = params;
  r.generation = generation;
  r.target = "host";
  r.status = std::isfinite(time_ms) ? jobs::Status::ok : jobs::Status::compile_error;
  r.time_median_ms = std::isfinite(time_ms) ? time_ms : jobs::kNaN;
  if (!std::isfinite(time_ms)) r.evidence = "error: line 12: expected ';'";
  return r;
}

inline jobs::Generation generation(int n, std::vector<jobs::EvalRecord> records) {
  jobs::Generation g;
  g.generation = n;
  for (auto& r : records) {
    r.generation = n;
    if (std::isfinite(jobs::fitness_ms(r))) g.population.push_back({0, r.candidate_id, r.time_median_ms});
  }
  g.records = std::move(records);
  return g;
}

inline CampaignConfig campaign(double mutation = 0.6, double crossover = 0.3) {
  CampaignConfig c;
  c.name = "learning-test";
  c.targets = {"host"};
  c.search.mutation_rate = mutation;
  c.search.crossover_rate = crossover;
  return c;
}

}  // namespace kforge::scheduler::testing
