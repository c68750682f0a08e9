#pragma once
// `kforge verify DIR`: every archive file of a campaign folder checked against what binds it to the campaign
// (docs/archive-schema.md, "Verifying an archive").
#include <filesystem>
#include <string>
#include <vector>

namespace kforge::jobs {

struct ArchiveProblem {
  std::filesystem::path file;
  std::string what;
};

struct ArchiveCheck {
  std::vector<ArchiveProblem> problems;  // empty: the archive is whole
  std::vector<std::string> notes;        // what could not be proved (schema-1 files), not problems
  int generation_files = 0;
  int shards = 0;
  int seals = 0;
};

// Checks DIR/campaign-id, campaign.h5 (its digest and seals), every gen-NNNN.h5 (digest, Fletcher32, number,
// campaign id, seal, no gaps) and every gNNNN/shards/TTTT.h5 (digest, number, task, campaign id). Never throws for
// a damaged file: each one is a problem naming the file.
ArchiveCheck verify_archive(const std::filesystem::path& dir);

}  // namespace kforge::jobs
