#include "kforge/scheduler/report/served_engine.hpp"

#include <stdexcept>

#include "kforge/jobs/genome.hpp"
#include "kforge/scheduler/config/archive_view.hpp"
#include "record_manifest.hpp"

namespace kforge::scheduler {

namespace {

// The weights an engine genome declares (no `weights` gene: fp32, its default).
std::string precision_of(const std::string& params) {
  const jobs::Genome g = jobs::Genome::from_text(params);
  return g.has("weights") ? g.get_string("weights") : "fp32";
}

}  // namespace

ServedEngineChoice choose_served_engine(const CampaignDir& dir, const std::string& precision,
                                        const std::string& candidate) {
  const std::string where = dir.root().string();
  const ArchiveView archive = ArchiveView::load(dir);
  if (archive.generations().empty()) throw std::runtime_error(where + ": no finished generation to serve from");
  const jobs::EvalRecord* best = nullptr;
  bool any_engine = false;
  for (const jobs::Generation& g : archive.generations())
    for (const jobs::EvalRecord& r : g.records) {
      if (r.family != "engine") continue;
      any_engine = true;
      if (r.status != jobs::Status::ok || r.backend != "host") continue;
      if (!candidate.empty() && r.candidate_id != candidate) continue;
      if (!precision.empty() && precision_of(r.params) != precision) continue;
      if (best == nullptr || r.time_median_ms < best->time_median_ms) best = &r;
    }
  if (!any_engine) throw std::runtime_error(where + " is not an engine campaign: it has no engine to serve");
  if (best == nullptr)
    throw std::runtime_error(where + " has no verified host engine" +
                             (candidate.empty() ? "" : " with the id " + candidate) +
                             (precision.empty() ? "" : " with weights " + precision));
  const std::optional<jobs::TaskManifest> task = manifest_of(dir, *best);  // manifests hold absolute paths
  if (!task) throw std::runtime_error(where + ": no readable task manifest evaluated " + best->candidate_id);
  ServedEngineChoice c{best->candidate_id,         best->generation, best->params,
                       precision_of(best->params), best->source,     task->settings.engine.model.path,
                       best->time_median_ms};
  if (c.model_path.empty())
    throw std::runtime_error(where + ": the task that evaluated " + c.candidate_id +
                             " names no model folder (a campaign on random weights has no model to serve)");
  return c;
}

}  // namespace kforge::scheduler
