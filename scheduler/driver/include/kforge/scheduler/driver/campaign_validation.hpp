#pragma once
// Everything `kforge validate`, `kforge run` and `kforge submit` check before anything is written, beyond what
// parsing each file checks: the campaign against the schema of the family that will run it
// (kforge/kernels/family_schema.hpp), the search space (constraints parse, some configuration satisfies them),
// and the site against the campaign (targets it maps). Every failure is a ConfigError (exit 2).
#include "kforge/scheduler/config/config.hpp"
#include "kforge/scheduler/config/family_check.hpp"  // check_campaign_against_family
#include "kforge/scheduler/search/search_space.hpp"

namespace kforge::scheduler {

// Enumerates the space (up to kExhaustiveCheckLimit configurations, else kSampledChecks random draws): a
// constraint that no configuration satisfies (or that divides by zero for every one) fails at that constraint;
// constraints that no configuration satisfies together fail at space.constraints.
inline constexpr double kExhaustiveCheckLimit = 200000;
inline constexpr int kSampledChecks = 10000;
void check_space_satisfiable(const CampaignConfig& campaign, const SearchSpace& space);

// check_campaign_against_family, the checks above and check_site_serves_campaign; returns the search space it built.
SearchSpace validate_campaign(const CampaignConfig& campaign, const SiteConfig& site);

}  // namespace kforge::scheduler
