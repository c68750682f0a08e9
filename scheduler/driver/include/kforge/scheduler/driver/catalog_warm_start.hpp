#pragma once
// The campaign's side of the site catalog (docs/catalog.md): before generation 0, the earlier campaigns of the
// same space that this user may read become the prior (unless search.prior says otherwise), chosen once and kept
// in DIR/catalog-priors.txt so that a resumed campaign uses the same; once the campaign is finished, what each
// prior was worth is printed and the campaign is entered in the catalog for the next.
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "kforge/scheduler/config/archive_view.hpp"
#include "kforge/scheduler/config/campaign_dir.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {

std::string campaign_fingerprint(const CampaignConfig& campaign);

// The catalog's campaign folders to add to search.prior (none unless search.prior is absent). Prints which.
std::vector<std::filesystem::path> catalog_priors(const CampaignConfig& campaign, const SiteConfig& site,
                                                  const CampaignDir& dir, bool planned_before, std::ostream& progress);

// Prints each prior's worth against the finished campaign's measurements, then enters the campaign in the
// catalog. A catalog that cannot be written is a warning line, never a failed campaign.
void catalog_finished_campaign(const CampaignConfig& campaign, const SiteConfig& site, const CampaignDir& dir,
                               const ArchiveView& archive, std::ostream& progress);

}  // namespace kforge::scheduler
