// `kforge suggest CAMPAIGN.yaml`: the best known configurations of the campaign's space from the site catalog,
// with the measurements they rest on, without running anything (docs/catalog.md). Useful for a GPU that has no
// campaign yet: the configurations the site's campaigns of this space rank best together.
#include <cmath>
#include <cstdio>
#include <iostream>

#include "command_table.hpp"
#include "kforge/jobs/exit_codes.hpp"
#include "kforge/jobs/json_text.hpp"
#include "kforge/scheduler/driver/catalog_warm_start.hpp"
#include "kforge/scheduler/search/catalog.hpp"
#include "kforge/scheduler/search/prior_use.hpp"
#include "kforge/scheduler/search/search_space.hpp"

namespace kforge::cli {
namespace {

using jobs::json_string;

void suggest_options(po::options_description& options) {
  options.add_options()("campaign", po::value<std::string>()->required(), "campaign file whose space is asked about")(
      "site", po::value<std::string>(), "site config (its catalog; default: the embedded local site)")(
      "top", po::value<int>()->default_value(3), "how many configurations")("json", "print JSON");
}

void print_text(const std::vector<scheduler::PriorPick>& picks, std::size_t campaigns) {
  std::printf("best known configurations of this space, from %zu campaign%s of the catalog:\n", campaigns,
              campaigns == 1 ? "" : "s");
  for (std::size_t i = 0; i < picks.size(); ++i) {
    std::printf("%zu. %s\n", i + 1, picks[i].genome.to_text().c_str());
    for (const auto& e : picks[i].evidence)
      std::printf("     %.4g ms, rank %d of %d in %s\n", e.time_ms, e.rank, e.of, e.source.c_str());
  }
}

void print_json(const std::vector<scheduler::PriorPick>& picks, const std::vector<std::string>& sources) {
  std::cout << "{\"schema\":1,\"sources\":[";
  for (std::size_t i = 0; i < sources.size(); ++i) std::cout << (i ? "," : "") << json_string(sources[i]);
  std::cout << "],\"suggestions\":[";
  for (std::size_t i = 0; i < picks.size(); ++i) {
    std::cout << (i ? "," : "") << "{\"params\":" << json_string(picks[i].genome.to_text())
              << ",\"score\":" << picks[i].score << ",\"evidence\":[";
    for (std::size_t k = 0; k < picks[i].evidence.size(); ++k) {
      const auto& e = picks[i].evidence[k];
      std::cout << (k ? "," : "") << "{\"source\":" << json_string(e.source) << ",\"time_ms\":" << e.time_ms
                << ",\"rank\":" << e.rank << ",\"of\":" << e.of << "}";
    }
    std::cout << "]}";
  }
  std::cout << "]}\n";
}

int suggest(const po::variables_map& options) {
  const scheduler::CampaignConfig campaign = scheduler::load_campaign(options["campaign"].as<std::string>());
  const int top = options["top"].as<int>();
  if (top < 1) throw Usage("--top must be at least 1");
  const auto folder = catalog_from(options, "suggest");
  if (!folder) return jobs::exit_code::kFailure;
  scheduler::UsablePriors usable = scheduler::usable_catalog_priors(*folder, scheduler::campaign_fingerprint(campaign));
  for (const auto& why : usable.refused) std::cerr << "kforge suggest: " << why << "\n";
  std::vector<scheduler::PriorObservations> sets;
  std::vector<std::string> sources;
  for (auto& prior : usable.priors) {
    sources.push_back(prior.entry.archive.string());
    for (auto& set : prior.sets) sets.push_back(std::move(set));
  }
  if (sets.empty()) {
    std::cerr << "kforge suggest: no campaign of this space (family " << campaign.family << ") that you may read in "
              << folder->string() << "\n";
    return jobs::exit_code::kFailure;
  }
  const scheduler::SearchSpace space(campaign.space);
  const auto picks = scheduler::best_of_priors(
      sets, [&](const jobs::Genome& g) { return space.contains(g); }, top);
  if (options.count("json")) {
    print_json(picks, sources);
  } else {
    print_text(picks, sources.size());
  }
  return jobs::exit_code::kSuccess;
}

}  // namespace

const Command kSuggestCommand{"suggest",
                              "CAMPAIGN.yaml [--site SITE.yaml] [--top N] [--json]",
                              "the best known configurations of a space from the catalog, without running anything",
                              "kforge suggest CAMPAIGN.yaml",
                              "campaign",
                              suggest_options,
                              suggest};

}  // namespace kforge::cli
