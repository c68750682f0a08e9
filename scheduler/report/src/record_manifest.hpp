#pragma once
// The task manifest that evaluated a record (private to scheduler/report: kforge export and kforge serve read it).
#include <optional>

#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/record.hpp"
#include "kforge/scheduler/config/campaign_dir.hpp"

namespace kforge::scheduler {

// The manifest of the record's generation, target and candidate id: its problem sizes, compiler, flags and model are
// what was measured. std::nullopt when none is left (unreadable manifests are skipped).
std::optional<jobs::TaskManifest> manifest_of(const CampaignDir& dir, const jobs::EvalRecord& record);

}  // namespace kforge::scheduler
