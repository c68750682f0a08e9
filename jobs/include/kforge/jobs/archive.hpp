#pragma once
// HDF5 files: task shards, immutable generation files and the campaign index (docs/archive-schema.md).
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "kforge/jobs/candidate.hpp"
#include "kforge/jobs/lessons.hpp"
#include "kforge/jobs/record.hpp"

namespace kforge::jobs {

// Datasets that old readers can ignore were added without a bump (docs/archive-schema.md, "Changing the
// schema"): /operator_weights, /lessons, /validation and /failed_cases read back empty from older files.
// Version 2 binds every file to its campaign and place (campaign_id, content_sha256, Fletcher32 on every table,
// seals in campaign.h5); version 1 files are still read, without those proofs.
inline constexpr int kSchemaVersion = 2;

// DIR/campaign-id: the random id of one campaign folder, written once when the campaign is created.
inline constexpr const char* kCampaignIdFile = "campaign-id";

// Written as root attributes of every kforge HDF5 file.
struct Provenance {
  std::string creator = "kforge";
  std::string version;  // kforge version
  int schema_version = kSchemaVersion;
  std::string created;      // ISO-8601 UTC
  std::string config_hash;  // sha256 of the campaign + site config text
  std::string host;
  std::string campaign;
  // The campaign's id (DIR/campaign-id): tells this campaign's files from a copy of another campaign's, even
  // one with the same name and configuration. Empty in schema-1 files.
  std::string campaign_id;
  bool operator==(const Provenance&) const = default;
};

// What one array task produced.
struct Shard {
  Provenance provenance;
  int generation = 0;
  int island = 0;
  int task = 0;
  std::string target;
  std::vector<EvalRecord> records;
  std::vector<Baseline> baselines;
};

// A survivor of selection: the population that breeds the next generation.
struct PopulationEntry {
  std::int32_t island = 0;
  std::string candidate_id;
  double fitness_ms = kNaN;
  bool operator==(const PopulationEntry&) const = default;
};

// Everything one generation added to the archive.
struct Generation {
  Provenance provenance;
  int generation = 0;
  std::vector<Candidate> candidates;  // every candidate of this generation (evaluated or reused)
  std::vector<EvalRecord> records;    // new evaluations only: each (id, target) appears once in a campaign
  std::vector<Baseline> baselines;
  std::vector<PopulationEntry> population;       // survivors after selection
  std::vector<OperatorWeight> operator_weights;  // the shares this generation was bred with, and their outcome
  Lessons lessons;                               // cumulative, up to and including this generation
  std::vector<ValidationCase> validation;        // the campaign's validation set after this generation
  std::vector<ModelQualityRow> model_quality;    // surrogate campaigns: its model's foresight so far, per island
};

// What a reader knows a file must be: whose it is and where it lies in its campaign. Empty / -1: not checked.
// Whatever the expectation, readers also refuse a file whose content digest does not match, and a file whose
// `generation` (and, for shards, `task`) differs from its name: gen-NNNN.h5, gNNNN/shards/TTTT.h5.
struct FileExpectation {
  std::string campaign_id;  // the campaign's id (DIR/campaign-id); schema-1 files cannot be checked for it
  int generation = -1;
  int task = -1;       // shards only
  std::string sha256;  // generation files: the seal recorded in campaign.h5 (SHA-256 of the whole file)
};

// Temp name in the same folder, fsync, rename: the file exists whole or not at all. An empty
// provenance.campaign_id is taken from DIR/campaign-id when the shard is written to DIR/gNNNN/shards/.
void write_shard(const std::filesystem::path& path, const Shard& s);
// Throws std::runtime_error, starting with the path, if missing, partial, damaged, of a wrong schema or not
// what `expected` says.
Shard read_shard(const std::filesystem::path& path, const FileExpectation& expected = {});

// Immutable: throws if path already exists.
void write_generation(const std::filesystem::path& path, const Generation& g);
Generation read_generation(const std::filesystem::path& path, const FileExpectation& expected = {});

// campaign.h5 in dir: provenance + external links /generations/gNNNN -> gen-NNNN.h5:/ for every
// gen-*.h5 present, and /seals: the SHA-256 of each generation file, recorded the first time the index is rebuilt
// after the file was written and kept unchanged afterwards; written to a temp name and renamed.
void rebuild_campaign_index(const std::filesystem::path& dir, const Provenance& p);

std::string generation_file_name(int generation);  // "gen-0007.h5"

}  // namespace kforge::jobs
