#pragma once
// The site catalog: one small file per finished campaign, so that a new campaign of the same space starts warm
// from what the site already measured (docs/catalog.md). An entry only points at an archive; nothing in it is
// trusted but the path: owner = the entry file's owner (the kernel's word), times and genomes are read from the
// archive itself, and an archive is used only when the reader can open it (the operating system decides) and
// it belongs to the entry's owner. Who may see an entry follows who may read its archive's campaign.h5 (mode
// 0644, 0640 or 0600), so a private campaign is not even listed to another user.
#include <sys/types.h>

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "kforge/scheduler/search/strategy.hpp"

namespace kforge::scheduler {

struct CatalogEntry {
  std::filesystem::path file;  // the entry in the catalog folder
  uid_t owner = 0;             // of the entry file (and of the archive, checked when it is read)
  std::string owner_name;      // from the password database, or the number
  std::string campaign;        // campaign.name
  std::string family;
  std::string fingerprint;  // space_fingerprint(family, parameter names)
  std::vector<std::string> parameters;
  std::vector<std::string> targets;
  std::map<std::string, std::string> gpu_models;  // target -> the GPU its records name (none on the host backend)
  std::filesystem::path archive;                  // the campaign folder (absolute)
  std::string visibility;  // "private", "group" or "shared": who may read the archive's campaign.h5
  std::string finished;    // ISO 8601, UTC
};

// What a site or user set: a folder, or none. KFORGE_CATALOG (a path, or "none") wins over site.catalog; without
// either, the user's own catalog ${XDG_STATE_HOME:-$HOME/.local/state}/kforge/catalog ($HOME unset: the home of
// the password database). std::nullopt: no catalog.
std::optional<std::filesystem::path> catalog_folder(const std::string& site_setting);

// The space's identity across campaigns: family and sorted parameter names (value lists may differ: entries that
// are not configurations of the space are ignored when a prior is read).
std::string space_fingerprint(const std::string& family, std::vector<std::string> parameters);

// Writes (or replaces) this campaign's entry, mode following its campaign.h5. Throws std::runtime_error naming
// the file when the folder cannot be written.
CatalogEntry register_campaign(const std::filesystem::path& catalog, const CatalogEntry& entry);

struct CatalogListing {
  std::vector<CatalogEntry> entries;  // readable, well-formed, and (when asked) of one fingerprint
  std::vector<std::string> skipped;   // "FILE: why" for entries that were readable but unusable
};
// Every entry this process may read; `fingerprint` empty = all. Entries of other users that the OS refuses are
// not listed and not reported (they are private).
CatalogListing list_catalog(const std::filesystem::path& catalog, const std::string& fingerprint = "");

// An entry's measurements as prior sets (one per target), or why it cannot be used (unreadable archive, owned by
// someone else than the entry's owner, damaged).
struct CatalogPrior {
  CatalogEntry entry;
  std::vector<PriorObservations> sets;
  std::string unusable;  // empty when usable
};
CatalogPrior read_catalog_prior(const CatalogEntry& entry);

// The usable priors of one space in the catalog, read (the archive `except`, a campaign's own, left out), and a
// line for each entry that could not be used: "not using FILE: why" (an archive refused) or "skipped FILE: why"
// (a readable entry that is no catalog entry). What a campaign's warm start and `kforge suggest` both read.
struct UsablePriors {
  std::vector<CatalogPrior> priors;
  std::vector<std::string> refused;
};
UsablePriors usable_catalog_priors(const std::filesystem::path& catalog, const std::string& fingerprint,
                                   const std::filesystem::path& except = {});

}  // namespace kforge::scheduler
