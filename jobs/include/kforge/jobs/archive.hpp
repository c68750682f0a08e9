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
inline constexpr int kSchemaVersion = 1;

// Written as root attributes of every kforge HDF5 file.
struct Provenance {
  std::string creator = "kforge";
  std::string version;       // kforge version
  int schema_version = kSchemaVersion;
  std::string created;       // ISO-8601 UTC
  std::string config_hash;   // sha256 of the campaign + site config text
  std::string host;
  std::string campaign;
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
  std::vector<Candidate> candidates;        // every candidate of this generation (evaluated or reused)
  std::vector<EvalRecord> records;          // new evaluations only: each (id, target) appears once in a campaign
  std::vector<Baseline> baselines;
  std::vector<PopulationEntry> population;  // survivors after selection
  std::vector<OperatorWeight> operator_weights;  // the shares this generation was bred with, and their outcome
  Lessons lessons;                               // cumulative, up to and including this generation
  std::vector<ValidationCase> validation;        // the campaign's validation set after this generation
};

// Temp name in the same folder, fsync, rename: the file exists whole or not at all.
void write_shard(const std::filesystem::path& path, const Shard& s);
Shard read_shard(const std::filesystem::path& path);  // throws std::runtime_error if missing, partial or wrong schema

// Immutable: throws if path already exists.
void write_generation(const std::filesystem::path& path, const Generation& g);
Generation read_generation(const std::filesystem::path& path);

// campaign.h5 in dir: provenance + external links /generations/gNNNN -> gen-NNNN.h5:/ for every
// gen-*.h5 present; written to a temp name and renamed.
void rebuild_campaign_index(const std::filesystem::path& dir, const Provenance& p);

std::string generation_file_name(int generation);  // "gen-0007.h5"

}  // namespace kforge::jobs
