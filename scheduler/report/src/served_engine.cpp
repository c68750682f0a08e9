#include "kforge/scheduler/report/served_engine.hpp"

#include <filesystem>
#include <stdexcept>

#include "kforge/jobs/genome.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/scheduler/config/archive_view.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;

namespace {

// The weights an engine genome declares (no `weights` gene: fp32, its default).
std::string precision_of(const std::string& params) {
  const jobs::Genome g = jobs::Genome::from_text(params);
  return g.has("weights") ? g.get_string("weights") : "fp32";
}

// The model folder of the task that evaluated `id` in generation g (manifests hold absolute paths).
std::string model_path_of(const CampaignDir& dir, int g, const std::string& id) {
  for (int t = 0; fs::exists(dir.manifest(g, t)); ++t) {
    const jobs::TaskManifest m = jobs::read_manifest(dir.manifest(g, t));
    for (const auto& c : m.candidates)
      if (c.id == id) return m.settings.engine.model.path;
  }
  return "";
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
  ServedEngineChoice c{best->candidate_id,  best->generation,
                       best->params,        precision_of(best->params),
                       best->source,        model_path_of(dir, best->generation, best->candidate_id),
                       best->time_median_ms};
  if (c.model_path.empty())
    throw std::runtime_error(where + ": the task that evaluated " + c.candidate_id +
                             " names no model folder (a campaign on random weights has no model to serve)");
  return c;
}

}  // namespace kforge::scheduler
