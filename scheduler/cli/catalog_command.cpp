// `kforge catalog`: the finished campaigns of the catalog this user may see (docs/catalog.md), one line each, so a
// user can tell what a new campaign will start warm from and an admin what the shared folder holds.
#include <sys/stat.h>

#include <cstdio>
#include <iostream>

#include "command_table.hpp"
#include "kforge/jobs/exit_codes.hpp"
#include "kforge/jobs/json_text.hpp"
#include "kforge/scheduler/search/catalog.hpp"

namespace kforge::cli {
namespace {

using jobs::json_string;

void catalog_options(po::options_description& options) {
  options.add_options()("site", po::value<std::string>(),
                        "site config (its catalog; default: the embedded local site)")("json", "print JSON");
}

// "readable", "gone" (no campaign.h5 there: the archive was moved or deleted) or "unreadable" (not for this user).
std::string archive_state(const scheduler::CatalogEntry& e) {
  struct stat st {};
  const std::string file = (e.archive / "campaign.h5").string();
  if (::stat(file.c_str(), &st) != 0) return errno == EACCES ? "unreadable" : "gone";
  return ::access(file.c_str(), R_OK) == 0 ? "readable" : "unreadable";
}

std::string targets_of(const scheduler::CatalogEntry& e) {
  std::string out;
  for (const auto& t : e.targets) {
    out += (out.empty() ? "" : ",") + t;
    if (const auto gpu = e.gpu_models.find(t); gpu != e.gpu_models.end() && !gpu->second.empty())
      out += " (" + gpu->second + ")";
  }
  return out;
}

void print_text(const std::filesystem::path& folder, const scheduler::CatalogListing& listing) {
  std::printf("catalog %s: %zu campaign%s you may see\n", folder.c_str(), listing.entries.size(),
              listing.entries.size() == 1 ? "" : "s");
  if (listing.entries.empty()) return;
  std::printf("%-20s %-12s %-8s %-10s %-10s %-20s %-10s %s\n", "finished", "owner", "visible", "family", "campaign",
              "targets", "archive", "folder");
  for (const auto& e : listing.entries) {
    std::printf("%-20s %-12s %-8s %-10s %-10s %-20s %-10s %s\n", e.finished.c_str(), e.owner_name.c_str(),
                e.visibility.c_str(), e.family.c_str(), e.campaign.c_str(), targets_of(e).c_str(),
                archive_state(e).c_str(), e.archive.c_str());
  }
}

void print_json(const std::filesystem::path& folder, const scheduler::CatalogListing& listing) {
  std::cout << "{\"schema\":1,\"catalog\":" << json_string(folder.string()) << ",\"entries\":[";
  for (std::size_t i = 0; i < listing.entries.size(); ++i) {
    const auto& e = listing.entries[i];
    std::cout << (i ? "," : "") << "{\"finished\":" << json_string(e.finished)
              << ",\"owner\":" << json_string(e.owner_name) << ",\"visibility\":" << json_string(e.visibility)
              << ",\"family\":" << json_string(e.family) << ",\"campaign\":" << json_string(e.campaign)
              << ",\"fingerprint\":" << json_string(e.fingerprint) << ",\"targets\":[";
    for (std::size_t t = 0; t < e.targets.size(); ++t) std::cout << (t ? "," : "") << json_string(e.targets[t]);
    std::cout << "],\"gpu_models\":{";
    std::size_t k = 0;
    for (const auto& [target, gpu] : e.gpu_models)
      std::cout << (k++ ? "," : "") << json_string(target) << ":" << json_string(gpu);
    std::cout << "},\"archive\":" << json_string(e.archive.string())
              << ",\"archive_state\":" << json_string(archive_state(e)) << ",\"entry\":" << json_string(e.file.string())
              << "}";
  }
  std::cout << "],\"skipped\":[";
  for (std::size_t i = 0; i < listing.skipped.size(); ++i)
    std::cout << (i ? "," : "") << json_string(listing.skipped[i]);
  std::cout << "]}\n";
}

int list(const po::variables_map& options) {
  const auto folder = catalog_from(options, "catalog");
  if (!folder) return jobs::exit_code::kFailure;
  const scheduler::CatalogListing listing = scheduler::list_catalog(*folder);
  for (const auto& why : listing.skipped) std::cerr << "kforge catalog: skipped " << why << "\n";
  if (options.count("json")) {
    print_json(*folder, listing);
  } else {
    print_text(*folder, listing);
  }
  return jobs::exit_code::kSuccess;
}

}  // namespace

std::optional<std::filesystem::path> catalog_from(const po::variables_map& options, const char* command) {
  auto folder = scheduler::catalog_folder(site_from(options).catalog);
  if (!folder) std::cerr << "kforge " << command << ": no catalog (KFORGE_CATALOG or site.catalog is none)\n";
  return folder;
}

const Command kCatalogCommand{"catalog",
                              "[--site SITE.yaml] [--json]",
                              "the finished campaigns of the catalog you may see, and where their archives are",
                              "kforge catalog",
                              nullptr,
                              catalog_options,
                              list};

}  // namespace kforge::cli
