#include "kforge/scheduler/config/campaign_change.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "kforge/jobs/archive_binding.hpp"
#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;
namespace {

constexpr const char* kGenerationsKey = "search.generations";

// A value as one line: scalars as written, lists and maps in flow style ("[16, 32]", "{M: 64}").
std::string render(const YAML::Node& node) {
  if (!node.IsDefined()) return "(absent)";
  if (node.IsNull()) return "null";
  if (node.IsScalar()) return node.Scalar();
  YAML::Emitter out;
  out.SetSeqFormat(YAML::Flow);
  out.SetMapFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

// Maps are walked key by key so that a change deep in space.parameters is named by its own path; any other
// pair of values is compared as a whole through its rendering (comments and layout are gone by then).
void compare(const YAML::Node& a, const YAML::Node& b, const std::string& path, std::vector<std::string>& out) {
  if (a.IsDefined() && b.IsDefined() && a.IsMap() && b.IsMap()) {
    std::vector<std::string> keys;
    for (const auto& kv : a) keys.push_back(kv.first.Scalar());
    for (const auto& kv : b) keys.push_back(kv.first.Scalar());
    std::sort(keys.begin(), keys.end());
    keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
    for (const auto& key : keys) compare(a[key], b[key], path.empty() ? key : path + "." + key, out);
    return;
  }
  const std::string before = render(a), after = render(b);
  if (before != after) out.push_back(path + ": " + before + " -> " + after);
}

bool is_generations_change(const std::string& change) {
  return change.rfind(std::string(kGenerationsKey) + ":", 0) == 0;
}

}  // namespace

CampaignChangeRefused::CampaignChangeRefused(std::string message, std::vector<std::string> changes)
    : std::runtime_error(message), changes_(std::move(changes)) {}

std::vector<std::string> campaign_differences(const std::string& stored_text, const std::string& new_text) {
  std::vector<std::string> changes;
  // yaml-cpp nodes are handles: const copies keep lookups of absent keys from inserting them.
  const YAML::Node stored = YAML::Load(stored_text), next = YAML::Load(new_text);
  compare(stored, next, "", changes);
  return changes;
}

bool accept_campaign_change(const std::string& stored_text, const std::string& new_text, int generations_done,
                            const std::string& directory, const std::filesystem::path& new_file) {
  if (stored_text == new_text) return false;
  std::vector<std::string> changes = campaign_differences(stored_text, new_text);
  std::vector<std::string> refused;
  for (const auto& change : changes) {
    if (!is_generations_change(change)) {
      refused.push_back(change);
      continue;
    }
    // The effective value (a default when the key is absent), from the same parser `kforge run` uses.
    const int wanted = parse_campaign(new_text, new_file).search.generations;
    if (wanted < generations_done) {
      refused.push_back(change + " (" + std::to_string(generations_done) +
                        " generations are already done: it may not go below that)");
    }
  }
  if (refused.empty()) return true;
  std::ostringstream message;
  message << directory << " holds a campaign started from a different campaign file; changed:\n";
  for (const auto& r : refused) message << "  " << r << "\n";
  message << "only search.generations may change (raise it to extend the campaign); resume with the file stored "
             "as "
          << directory << "/campaign.yaml or choose another --out";
  throw CampaignChangeRefused(message.str(), refused);
}

bool update_stored_campaign(const CampaignDir& dir, const std::string& new_text,
                            const std::filesystem::path& new_file) {
  int done = 0;  // generation files are written in order, each whole or not at all
  while (std::filesystem::exists(dir.generation_file(done))) ++done;
  const std::string stored = jobs::read_text_file(dir.campaign_config());
  if (!accept_campaign_change(stored, new_text, done, dir.root().string(), new_file)) return false;
  jobs::write_text_file_atomically(dir.campaign_config(), new_text);  // e.g. search.generations raised
  return true;
}

void prepare_campaign_dir(const CampaignDir& dir, const CampaignConfig& campaign, const SiteConfig& site) {
  fs::create_directories(dir.root());
  if (fs::exists(dir.campaign_config())) {
    // Throws CampaignChangeRefused (listing the changed keys) before anything is written.
    update_stored_campaign(dir, campaign.text, campaign.file);
  } else {
    jobs::write_text_file_atomically(dir.campaign_config(), campaign.text);
  }
  jobs::write_text_file_atomically(dir.campaign_origin(), fs::absolute(campaign.file).lexically_normal().string());
  jobs::write_text_file_atomically(dir.site_config(),
                                   site.text);  // the site may change between resumes; keep the latest
  jobs::ensure_campaign_id(dir.root());         // binds every file this campaign writes to it (docs/archive-schema.md)
}

}  // namespace kforge::scheduler
