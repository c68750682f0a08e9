#pragma once
// The task manifest: exactly what one array task evaluates (ARCHITECTURE.md, "Task manifest").
// Stored as YAML so an admin can read it; a re-run of the task evaluates exactly the same work.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "kforge/jobs/candidate.hpp"
#include "kforge/jobs/engine_spec.hpp"
#include "kforge/jobs/record.hpp"

namespace kforge::jobs {

// How a candidate is evaluated: limits of its sandbox and the timing policy.
struct EvalSettings {
  double wall_timeout_s = 30.0;         // per candidate run (verify + time), wall clock
  double cpu_limit_s = 60.0;            // RLIMIT_CPU of the candidate's child
  std::int64_t memory_limit_mb = 2048;  // host: RLIMIT_AS of the candidate's child; cuda: static device memory
  std::int64_t file_limit_mb = 64;      // RLIMIT_FSIZE of the candidate's child
  double compile_timeout_s = 60.0;
  int warmup = 1;
  int min_repeats = 3;
  int max_repeats = 20;
  double target_spread = 0.05;                      // stop timing when (max-min)/median of the samples is under this
  double time_cap_s = 2.0;                          // stop timing when this much time was spent on samples
  std::map<std::string, std::int64_t> problem;      // family problem size, e.g. M, N, K
  std::vector<std::string> baselines;               // names of baselines to time, e.g. "reference", "openblas"
  std::string compiler = "c++";                     // host backend compiler
  std::string compile_flags = "-O3 -march=native";  // backend default flags (candidate flags are appended)
  bool compile_only = false;                        // stop after compile + resource check (no device, or dry runs)
  std::int64_t max_spill_bytes = 0;  // cuda: a kernel spilling more than this is resource_reject before any GPU time
  std::string replay_cache;          // replay backend: Kernel Tuner cache (.json.gz) whose measurements are looked up
  // The campaign's validation set when the task was planned: case texts of the family (inputs or shapes that
  // caught a wrong candidate earlier); every candidate is checked on each of them as well.
  std::vector<std::string> validation_cases;
  EngineSpec engine;  // campaign.family engine: the model served and the workload (empty otherwise)
  bool operator==(const EvalSettings&) const = default;
};

struct TaskManifest {
  std::string campaign;
  std::string campaign_id;  // DIR/campaign-id, carried into the shard (docs/archive-schema.md); "" in older manifests
  int generation = 0;
  int island = 0;
  int task = 0;
  std::string target;
  std::string family;
  std::string backend;
  std::uint64_t seed = 0;  // seeds the task's random inputs; the candidate's seed is derived from it and its id
  EvalSettings settings;
  std::vector<Candidate> candidates;
  std::string shard_path;  // where the shard goes; relative paths are relative to the manifest's folder
  // >= 0: a round of a confirmation (`kforge confirm`, docs/cli.md): the candidates are a target's best, in this
  // round's random order, re-timed with the baselines; the task lives in DIR/confirm/. -1: a generation's task.
  int confirm_round = -1;
  bool operator==(const TaskManifest&) const = default;
};

// Write atomically (temp name, fsync, rename). Throws std::runtime_error on I/O failure.
void write_manifest(const std::filesystem::path& path, const TaskManifest& m);
// Throws std::runtime_error naming the file and what is wrong.
TaskManifest read_manifest(const std::filesystem::path& path);

// A record of one of the manifest's candidates with its identity, lineage and target filled in (status still
// infra_error): the one place both the evaluator and the gatherer start a record from.
EvalRecord record_for(const Candidate& c, const TaskManifest& m);

// shard_path resolved against the manifest's folder.
std::filesystem::path resolve_shard_path(const std::filesystem::path& manifest_path, const TaskManifest& m);

}  // namespace kforge::jobs
