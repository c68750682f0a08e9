#include "evaluator.hpp"

#include <mpi.h>
#include <unistd.h>

#include <cstdio>
#include <map>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "cascade.hpp"
#include "kforge/jobs/archive.hpp"
#include "kforge/jobs/exit_codes.hpp"
#include "kforge/jobs/task_journal.hpp"
#include "kforge/kernels/backend.hpp"
#include "kforge/mpi_eval/child_payload.hpp"
#include "record_codec.hpp"
#include "run_context.hpp"
#include "sandbox_limits.hpp"
#include "timing_lock.hpp"
#include "work_distribution.hpp"

namespace kforge::mpi_eval {
namespace {

namespace fs = std::filesystem;
using jobs::Status;

constexpr const char* kReferenceBaseline = "reference";
constexpr std::size_t kBaselineTailBytes = 2048;

struct BaselineRun {
  std::vector<jobs::Baseline> baselines;
  std::string failure;  // why they could not be timed; becomes evidence on the records
};

// One line, written with a single call so that lines of concurrent ranks do not interleave.
void log_line(int rank, const std::string& text) { std::fprintf(stderr, "[rank %d] %s\n", rank, text.c_str()); }

std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

std::string summary(const jobs::EvalRecord& r) {
  std::string line = r.candidate_id.substr(0, 8) + ".. " + std::string(jobs::to_string(r.status));
  if (r.status == Status::ok && r.sample_count > 0) {
    char ms[32];
    std::snprintf(ms, sizeof ms, " %.3g ms", r.time_median_ms);
    return line + ms + (r.timing_noisy ? " (timing noisy)" : "");
  }
  return r.status == Status::ok ? line : line + ": " + first_line(r.evidence);
}

BaselineRun time_baselines(kernels::Backend& backend, const jobs::TaskManifest& m, const fs::path& scratch) {
  const auto& s = m.settings;
  if (s.baselines.empty() || s.compile_only) return {};
  fs::create_directories(scratch);
  Limits limits = limits_for(s, backend);  // a device backend needs its address space unlimited
  const auto count = static_cast<double>(s.baselines.size());
  limits.wall_s *= count;  // each baseline gets what one candidate gets
  limits.cpu_s *= count;
  const kernels::EvalContext ctx{&s, scratch, m.seed, m.target};
  std::optional<TimingLock> lock;  // baselines are timed like candidates: alone on the node's cores or the GPU
  if (const auto path = timing_lock_for(backend)) lock.emplace(*path);
  const ChildOutcome o = run_sandboxed(limits, scratch, [&] { return encode_baselines(backend.time_baselines(ctx)); });
  const std::string lock_problem = lock ? lock->problem() : std::string();
  lock.reset();
  if (!lock_problem.empty()) log_line(0, "baselines timed without their timing lock: " + lock_problem);
  BaselineRun run;
  if (!returned_normally(o)) {
    const std::string tail = o.output_tail.size() > kBaselineTailBytes
                                 ? o.output_tail.substr(o.output_tail.size() - kBaselineTailBytes)
                                 : o.output_tail;
    run.failure = "timing the baselines " + o.describe() + (tail.empty() ? "" : "\n" + tail);
    return run;
  }
  try {
    run.baselines = decode_baselines(o.payload);
  } catch (const std::invalid_argument& e) {
    run.failure = std::string("the baseline child sent an unreadable report: ") + e.what();
  }
  for (auto& b : run.baselines) {
    b.task = m.task;
    if (b.host.empty()) b.host = jobs::host_name();
  }
  return run;
}

void fill_speedups(std::vector<jobs::EvalRecord>& records, const BaselineRun& run) {
  const jobs::Baseline* reference = nullptr;
  for (const auto& b : run.baselines) {
    if (b.name == kReferenceBaseline) reference = &b;
  }
  for (auto& r : records) {
    if (r.status != Status::ok || !(r.time_median_ms > 0)) continue;
    if (reference && reference->time_median_ms > 0) {
      r.speedup = reference->time_median_ms / r.time_median_ms;
    } else if (!run.failure.empty()) {
      r.evidence += "\nspeedup unavailable: " + first_line(run.failure);
    }
  }
}

// This rank's scratch folder; the second value says whether its parent was made for this run only.
std::pair<fs::path, bool> rank_scratch(const EvaluatorOptions& o, const jobs::TaskManifest& m, int rank) {
  const std::string pid = std::to_string(::getpid());
  if (o.scratch.empty())
    return {fs::temp_directory_path() / ("kforge-eval-" + pid) / ("rank-" + std::to_string(rank)), true};
  return {o.scratch / ("task" + std::to_string(m.task) + "-rank" + std::to_string(rank) + "-pid" + pid), false};
}

void clean_scratch(const fs::path& folder, bool parent_is_private, bool keep, int rank) {
  if (keep) {
    log_line(rank, "scratch kept in " + folder.string());
    return;
  }
  std::error_code ignored;
  fs::remove_all(parent_is_private ? folder.parent_path() : folder, ignored);
}

// Evaluates one candidate between "start" and "done" lines of this rank's journal (task_journal.hpp).
jobs::EvalRecord evaluate_one(kernels::Backend& backend, const jobs::TaskManifest& m, std::size_t index,
                              const fs::path& scratch, int rank, bool keep, const fs::path& shard) {
  const std::string& id = m.candidates[index].id;
  jobs::journal::started(shard, rank, id);
  const jobs::EvalRecord r = evaluate_candidate(backend, m.candidates[index], m, scratch, rank, {keep});
  jobs::journal::finished(shard, rank, id);
  log_line(rank, summary(r));
  return r;
}

// Rank 0, before handing out work: candidates that were in flight when earlier runs of this task died. Those at
// kDeathsToBlame deaths are recorded as crash without running; the others ("suspects") are evaluated here one at
// a time, alone on the task, so that another death points at one candidate only.
std::map<std::size_t, jobs::EvalRecord> settle_suspects(kernels::Backend& backend, const jobs::TaskManifest& m,
                                                        const fs::path& scratch, bool keep, const fs::path& shard) {
  const std::map<std::string, int> deaths = jobs::journal::deaths(shard);
  jobs::journal::begin_run(shard, 0);  // after reading: this run's lines start here
  std::map<std::size_t, jobs::EvalRecord> settled;
  for (std::size_t i = 0; i < m.candidates.size(); ++i) {
    const auto it = deaths.find(m.candidates[i].id);
    if (it == deaths.end()) continue;
    if (it->second >= jobs::journal::kDeathsToBlame) {
      settled.emplace(i, blamed_record(m.candidates[i], m, 0, it->second));
      log_line(0, summary(settled.at(i)));
    } else {
      log_line(0, m.candidates[i].id.substr(0, 8) + ".. was in flight when " + std::to_string(it->second) +
                      " earlier run(s) of this task died: evaluated alone first");
      settled.emplace(i, evaluate_one(backend, m, i, scratch, 0, keep, shard));
    }
  }
  return settled;
}

jobs::Shard assemble_shard(const EvaluatorOptions& o, const jobs::TaskManifest& m,
                           std::vector<std::optional<jobs::EvalRecord>> results, BaselineRun baselines) {
  jobs::Shard shard;
  shard.provenance.version = o.version;
  shard.provenance.created = jobs::iso8601_now();
  shard.provenance.host = jobs::host_name();
  shard.provenance.campaign = m.campaign;
  shard.provenance.campaign_id = m.campaign_id;  // "" from an older manifest: write_shard falls back on DIR/campaign-id
  shard.generation = m.generation;
  shard.island = m.island;
  shard.task = m.task;
  shard.target = m.target;
  for (std::size_t i = 0; i < results.size(); ++i) {
    if (!results[i]) throw std::runtime_error("no record arrived for candidate " + m.candidates[i].id);
    shard.records.push_back(std::move(*results[i]));
  }
  fill_speedups(shard.records, baselines);
  shard.baselines = std::move(baselines.baselines);
  return shard;
}

std::string status_counts(const std::vector<jobs::EvalRecord>& records) {
  std::map<std::string, int> counts;
  for (const auto& r : records) ++counts[std::string(jobs::to_string(r.status))];
  std::string text;
  for (const auto& [status, n] : counts) text += (text.empty() ? "" : ", ") + std::to_string(n) + " " + status;
  return text;
}

}  // namespace

int run_evaluator(const EvaluatorOptions& options, const jobs::TaskManifest& manifest) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const auto backend = kernels::make_backend(manifest.backend, manifest.family);
  const auto [scratch, private_parent] = rank_scratch(options, manifest, rank);
  fs::create_directories(scratch);
  const fs::path shard_path = jobs::resolve_shard_path(options.manifest_path, manifest);

  BaselineRun baselines;
  std::map<std::size_t, jobs::EvalRecord> settled;
  if (rank == 0) {
    settled = settle_suspects(*backend, manifest, scratch, options.keep_scratch, shard_path);
    baselines = time_baselines(*backend, manifest, scratch / "baselines");
    if (!baselines.failure.empty()) log_line(rank, "baselines failed: " + first_line(baselines.failure));
  }
  if (rank != 0) jobs::journal::begin_run(shard_path, rank);  // rank 0's began in settle_suspects
  // Rank 0 alone knows the settled records: its queue never deals them out. (Looking them up in the evaluate
  // function missed on every other rank, so a candidate blamed for three deaths ran again wherever it was dealt.)
  const DistributionPlan plan{MPI_COMM_WORLD, manifest.candidates.size(), options.rank0_evaluates, std::move(settled)};
  const fs::path& rank_dir = scratch;  // clang 14 cannot capture a structured binding (C++20 can)
  auto results = distribute(plan, [&](std::size_t i) {
    return evaluate_one(*backend, manifest, i, rank_dir, rank, options.keep_scratch, shard_path);
  });
  clean_scratch(scratch, private_parent, options.keep_scratch, rank);
  if (rank != 0) return jobs::exit_code::kSuccess;

  const jobs::Shard shard = assemble_shard(options, manifest, std::move(results), std::move(baselines));
  const fs::path& path = shard_path;
  jobs::write_shard(path, shard);
  jobs::journal::remove_all(path);  // the task did not die: nothing in flight to remember
  log_line(rank, "wrote " + path.string() + " (" + std::to_string(shard.records.size()) +
                     " records: " + status_counts(shard.records) + ")");
  return jobs::exit_code::kSuccess;
}

}  // namespace kforge::mpi_eval
