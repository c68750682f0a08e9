#include "kforge/scheduler/driver/catalog_warm_start.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include "kforge/jobs/record.hpp"
#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/search/catalog.hpp"
#include "kforge/scheduler/search/prior_use.hpp"
#include "kforge/scheduler/search/strategy_prior_sources.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;

namespace {

fs::path chosen_file(const CampaignDir& dir) { return dir.root() / "catalog-priors.txt"; }

std::vector<fs::path> read_chosen(const CampaignDir& dir) {
  std::vector<fs::path> out;
  std::istringstream in(jobs::read_text_file(chosen_file(dir)));
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.front() == '/') out.emplace_back(line);
  }
  return out;
}

std::string summary(const CatalogPrior& p) {
  std::size_t evaluations = 0;
  double best = INFINITY;
  for (const auto& set : p.sets) {
    evaluations += set.measured.size();
    for (const auto& [genome, ms] : set.measured) best = std::min(best, ms);
  }
  std::string targets;
  for (const auto& t : p.entry.targets) {
    const auto gpu = p.entry.gpu_models.find(t);
    targets += (targets.empty() ? "" : ", ") + t + (gpu == p.entry.gpu_models.end() ? "" : " on " + gpu->second);
  }
  char buf[160];
  std::snprintf(buf, sizeof buf, " (target %s; %zu evaluations, best %.4g ms)", targets.c_str(), evaluations, best);
  return p.entry.owner_name + "/" + p.entry.campaign + " " + p.entry.archive.string() + buf;
}

}  // namespace

std::string campaign_fingerprint(const CampaignConfig& campaign) {
  std::vector<std::string> names;
  for (const auto& p : campaign.space.parameters) names.push_back(p.name);
  return space_fingerprint(campaign.family, names);
}

std::vector<fs::path> catalog_priors(const CampaignConfig& campaign, const SiteConfig& site, const CampaignDir& dir,
                                     bool planned_before, std::ostream& progress) {
  if (campaign.search.prior_from != "catalog") return {};
  if (fs::exists(chosen_file(dir))) return read_chosen(dir);  // a resumed campaign keeps its first choice
  if (planned_before) return {};                              // planned before the catalog existed: stays cold
  const auto folder = catalog_folder(site.catalog);
  std::vector<fs::path> chosen;
  if (folder) {
    const fs::path self = fs::weakly_canonical(fs::absolute(dir.root()));
    const UsablePriors usable = usable_catalog_priors(*folder, campaign_fingerprint(campaign), self);
    for (const auto& why : usable.refused) progress << "catalog: " << why << std::endl;
    std::vector<std::string> lines;
    for (const auto& prior : usable.priors) {
      chosen.push_back(prior.entry.archive);
      lines.push_back(summary(prior));
    }
    if (chosen.empty()) {
      progress << "catalog: no earlier campaign of this space in " << folder->string() << ": a cold start" << std::endl;
    } else {
      progress << "catalog: warm start from " << chosen.size() << " earlier campaign" << (chosen.size() == 1 ? "" : "s")
               << " of this space in " << folder->string() << " (search.prior: none turns this off):" << std::endl;
      for (const auto& l : lines) progress << "  " << l << std::endl;
    }
  }
  std::string text = "# search.prior from the catalog, chosen before generation 0 (docs/catalog.md)\n";
  for (const auto& p : chosen) text += p.string() + "\n";
  jobs::write_text_file_atomically(chosen_file(dir), text);
  return chosen;
}

void catalog_finished_campaign(const CampaignConfig& campaign, const SiteConfig& site, const CampaignDir& dir,
                               const ArchiveView& archive, std::ostream& progress) {
  // This campaign's own measurements, by target, as a prior would read them (source " (target T[ on GPU])").
  const std::vector<PriorObservations> here = campaign_prior_sets(archive, "");
  try {
    for (const auto& set : read_search_prior(campaign.search.prior)) {
      for (const auto& mine : here) {
        progress << describe(prior_worth(set, mine.measured)) << (here.size() > 1 ? mine.source : "") << std::endl;
      }
    }
  } catch (const std::exception& e) {
    progress << "catalog: cannot weigh the priors: " << e.what() << std::endl;
  }
  const auto folder = catalog_folder(site.catalog);
  if (!folder || archive.generations().empty()) return;
  CatalogEntry entry;
  entry.campaign = campaign.name;
  entry.family = campaign.family;
  for (const auto& p : campaign.space.parameters) entry.parameters.push_back(p.name);
  entry.fingerprint = campaign_fingerprint(campaign);
  entry.targets = campaign.targets;
  for (const auto& g : archive.generations()) {
    for (const auto& r : g.records) {
      if (!r.gpu_model.empty()) entry.gpu_models[r.target] = r.gpu_model;
    }
  }
  entry.archive = fs::absolute(dir.root());
  try {
    const CatalogEntry written = register_campaign(*folder, entry);
    progress << "catalog: entered as " << written.file.string() << " (" << written.visibility << ")" << std::endl;
  } catch (const std::exception& e) {
    progress << "catalog: warning: " << e.what() << " (this campaign is not in the catalog)" << std::endl;
  }
}

}  // namespace kforge::scheduler
