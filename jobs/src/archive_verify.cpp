// kforge verify: the whole campaign folder checked file by file (kforge/jobs/archive_verify.hpp).
#include "kforge/jobs/archive_verify.hpp"

#include <algorithm>
#include <map>
#include <regex>
#include <stdexcept>

#include "kforge/jobs/archive_binding.hpp"
#include "kforge/jobs/confirmation.hpp"

namespace kforge::jobs {
namespace fs = std::filesystem;
namespace {

// "PATH: reading shard: what" -> "reading shard: what": the report names the file once.
std::string without_path(const fs::path& file, const std::string& message) {
  const std::string prefix = file.string() + ": ";
  return message.rfind(prefix, 0) == 0 ? message.substr(prefix.size()) : message;
}

void add(ArchiveCheck& check, const fs::path& file, const std::exception& e) {
  check.problems.push_back({file, without_path(file, e.what())});
}

// Numbered entries of a folder whose names match `pattern` (group 1 = the number), by number.
std::map<int, fs::path> numbered(const fs::path& folder, const std::regex& pattern) {
  std::map<int, fs::path> out;
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) return out;
  for (const auto& entry : fs::directory_iterator(folder)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, m, pattern)) out.emplace(std::stoi(m[1]), entry.path());
  }
  return out;
}

void check_generation_files(const fs::path& dir, const CampaignBinding& binding, ArchiveCheck& check) {
  static const std::regex kGeneration(R"(gen-(\d+)\.h5)");
  const auto files = numbered(dir, kGeneration);
  const int count = files.empty() ? 0 : files.rbegin()->first + 1;
  bool missing_id_reported = false;
  for (int g = 0; g < count; ++g) {
    const fs::path path = dir / generation_file_name(g);
    if (!files.count(g)) {
      check.problems.push_back({path, "missing, although generation " + std::to_string(count - 1) + " exists"});
      continue;
    }
    ++check.generation_files;
    try {
      const Generation gen = read_campaign_generation(dir, binding, g, count);
      if (binding.campaign_id.empty() && !gen.provenance.campaign_id.empty() && !missing_id_reported) {
        check.problems.push_back({dir / kCampaignIdFile, "missing, but " + generation_file_name(g) +
                                                             " carries campaign id " + gen.provenance.campaign_id});
        missing_id_reported = true;
      }
      if (gen.provenance.schema_version < 2)
        check.notes.push_back(path.string() + ": schema_version 1: no content digest and no campaign id; only its " +
                              "structure" + (binding.seals.count(g) ? " and its seal" : "") + " could be checked");
    } catch (const std::exception& e) {
      add(check, path, e);
    }
  }
  for (const auto& [g, seal] : binding.seals)
    if (!files.count(g)) check.problems.push_back({dir / seal.file, "sealed in campaign.h5 but missing"});
}

void check_shards(const fs::path& dir, const std::string& campaign_id, ArchiveCheck& check) {
  static const std::regex kGenerationDir(R"(g(\d+))");
  static const std::regex kShard(R"((\d+)\.h5)");
  for (const auto& [g, gdir] : numbered(dir, kGenerationDir)) {
    for (const auto& [task, path] : numbered(gdir / "shards", kShard)) {
      ++check.shards;
      try {
        const Shard s = read_shard(path, FileExpectation{campaign_id, g, task, ""});
        if (s.provenance.schema_version < 2)
          check.notes.push_back(path.string() + ": schema_version 1: no content digest and no campaign id");
      } catch (const std::exception& e) {
        add(check, path, e);
      }
    }
  }
}

}  // namespace

ArchiveCheck verify_archive(const fs::path& dir) {
  ArchiveCheck check;
  CampaignBinding binding;
  try {
    binding.campaign_id = read_campaign_id(dir);
    if (binding.campaign_id.empty())
      check.notes.push_back((dir / kCampaignIdFile).string() +
                            ": absent (a campaign started before schema 2): files are not checked for their campaign");
  } catch (const std::exception& e) {
    add(check, dir / kCampaignIdFile, e);
  }
  const fs::path index = dir / "campaign.h5";
  std::error_code ec;
  try {
    binding.seals = read_seals(dir);
    check.seals = static_cast<int>(binding.seals.size());
    if (!fs::exists(index, ec) && fs::exists(dir / generation_file_name(0), ec))
      check.problems.push_back({index, "missing: the generation files are not sealed"});
  } catch (const std::exception& e) {
    add(check, index, e);
  }
  check_generation_files(dir, binding, check);
  const fs::path id_file = dir / kCampaignIdFile;
  if (std::any_of(check.problems.begin(), check.problems.end(), [&](const auto& p) { return p.file == id_file; }))
    std::erase_if(check.notes, [&](const std::string& n) { return n.rfind(id_file.string() + ":", 0) == 0; });
  check_shards(dir, binding.campaign_id, check);
  if (const fs::path confirmation = dir / "confirmation.h5"; fs::exists(confirmation, ec)) {
    try {
      (void)read_confirmation(confirmation, binding.campaign_id);
    } catch (const std::exception& e) {
      add(check, confirmation, e);
    }
  }
  return check;
}

}  // namespace kforge::jobs
