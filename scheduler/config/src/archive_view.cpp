#include "kforge/scheduler/config/archive_view.hpp"

#include <cmath>

#include "kforge/jobs/archive_binding.hpp"

namespace kforge::scheduler {

ArchiveView ArchiveView::load(const CampaignDir& dir) {
  ArchiveView view;
  const int n = dir.completed_generations();
  // Each file checked against the campaign's id, its number and its seal: a foreign or altered generation file
  // stops every command that reads the archive (and a resume) before its records are used.
  const jobs::CampaignBinding binding = jobs::read_campaign_binding(dir.root());
  for (int g = 0; g < n; ++g) view.add(jobs::read_campaign_generation(dir.root(), binding, g, n));
  return view;
}

void ArchiveView::add(jobs::Generation g) {
  for (const auto& c : g.candidates) candidates_.emplace(c.id, c);
  for (const auto& r : g.records) records_.emplace(std::make_pair(r.candidate_id, r.target), r);
  generations_.push_back(std::move(g));
}

const jobs::Candidate* ArchiveView::candidate(const std::string& id) const {
  auto it = candidates_.find(id);
  return it == candidates_.end() ? nullptr : &it->second;
}

const jobs::EvalRecord* ArchiveView::record(const std::string& id, const std::string& target) const {
  auto it = records_.find({id, target});
  return it == records_.end() ? nullptr : &it->second;
}

std::set<std::string> ArchiveView::evaluated_ids(const std::string& target) const {
  std::set<std::string> ids;
  for (const auto& [key, rec] : records_) {
    if (key.second == target) ids.insert(key.first);
  }
  return ids;
}

std::vector<jobs::PopulationEntry> ArchiveView::last_population(int island) const {
  std::vector<jobs::PopulationEntry> out;
  if (generations_.empty()) return out;
  for (const auto& p : generations_.back().population) {
    if (p.island == island) out.push_back(p);
  }
  return out;
}

std::vector<jobs::ValidationCase> ArchiveView::validation_set() const {
  return generations_.empty() ? std::vector<jobs::ValidationCase>{} : generations_.back().validation;
}

jobs::Lessons ArchiveView::lessons() const {
  return generations_.empty() ? jobs::Lessons{} : generations_.back().lessons;
}

std::optional<jobs::EvalRecord> ArchiveView::best() const {
  std::optional<jobs::EvalRecord> best;
  for (const auto& [key, rec] : records_) {
    double f = jobs::fitness_ms(rec);
    if (!std::isfinite(f)) continue;
    if (!best || f < jobs::fitness_ms(*best)) best = rec;
  }
  return best;
}

}  // namespace kforge::scheduler
