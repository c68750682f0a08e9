#pragma once
// What may change in a campaign file between runs on the same campaign directory. A directory holds the results
// of one campaign, so its file is compared with the stored DIR/campaign.yaml key by key (YAML trees, so comments,
// key order and whitespace do not count): only search.generations may change, and never below the generations
// already done — raising it extends a finished campaign. Used by `kforge run` (prepare_campaign_dir) and by the
// daemon's submit path, so both accept and refuse the same changes with the same message.
#include <stdexcept>
#include <string>
#include <vector>

#include "kforge/scheduler/config/campaign_dir.hpp"

namespace kforge::scheduler {

// A refused change; what() names the directory and lists every changed key. Nothing was written.
class CampaignChangeRefused : public std::runtime_error {
 public:
  CampaignChangeRefused(std::string message, std::vector<std::string> changes);
  // One entry per changed key path: "search.offspring: 16 -> 8", "space.parameters.MC: [16, 32] -> (absent)".
  const std::vector<std::string>& changes() const { return changes_; }

 private:
  std::vector<std::string> changes_;
};

// Every key path whose value differs between two campaign texts, each as "path: old -> new", sorted by path.
// Maps are compared key by key (recursively), anything else (scalars, lists) as a whole. Both texts must be YAML.
std::vector<std::string> campaign_differences(const std::string& stored_text, const std::string& new_text);

// Decides whether `new_text` may replace `stored_text` for a campaign with `generations_done` generation files.
// Returns true when the stored copy must be updated (the texts differ and the change is accepted: a comment or
// layout edit, or search.generations changed to at least generations_done); false when the texts are equal.
// Throws CampaignChangeRefused naming `directory` otherwise. `new_file` is the file `new_text` came from: its
// relative paths (engine.kernels_from, model.weights) mean paths next to it.
bool accept_campaign_change(const std::string& stored_text, const std::string& new_text, int generations_done,
                            const std::string& directory, const std::filesystem::path& new_file = "campaign.yaml");

// The whole check for an existing campaign directory, as `kforge run` and kforged's submit both do it: compares
// `new_text` with DIR/campaign.yaml (generations done: the gen-NNNN.h5 files present) and, when the change is
// accepted, replaces the stored copy atomically. Returns true when it did; throws CampaignChangeRefused (nothing
// written) otherwise. DIR/campaign.yaml must exist.
bool update_stored_campaign(const CampaignDir& dir, const std::string& new_text,
                            const std::filesystem::path& new_file = "campaign.yaml");

// `kforge run`'s start: creates DIR and stores copies of both configs, or, for an existing DIR, checks that it was
// started with the same campaign (update_stored_campaign: only search.generations may change, e.g. raised to extend
// a finished campaign; the stored copy is then updated). Any other change throws CampaignChangeRefused and writes
// nothing: results of two campaigns must never mix.
struct CampaignConfig;
struct SiteConfig;
void prepare_campaign_dir(const CampaignDir& dir, const CampaignConfig& campaign, const SiteConfig& site);

}  // namespace kforge::scheduler
