#include "cascade.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <stdexcept>
#include <system_error>

#include "child_protocol.hpp"
#include "frame.hpp"
#include "kforge/jobs/seed.hpp"
#include "kforge/mpi_eval/child_payload.hpp"
#include "outcome_record.hpp"
#include "run_context.hpp"
#include "sandbox_limits.hpp"
#include "timing_lock.hpp"
#include "timing_verdict.hpp"

namespace kforge::mpi_eval {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using jobs::Status;

constexpr std::size_t kCompileEvidenceBytes = 4096;
constexpr std::size_t kWarningEvidenceBytes = 1024;

jobs::EvalRecord record_skeleton(const jobs::Candidate& c, const jobs::TaskManifest& m, int rank) {
  jobs::EvalRecord r = jobs::record_for(c, m);
  stamp_place(r, rank);
  return r;
}

// A folder name that cannot escape scratch_root whatever the id holds.
std::string folder_name(const std::string& id) {
  std::string name = id.empty() ? "unnamed" : id;
  for (char& ch : name) {
    const bool safe = (ch >= '0' && ch <= '9') || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '-';
    if (!safe) ch = '_';
  }
  return name;
}

std::string run_in_child(kernels::Backend& backend, const kernels::CompileResult& compiled,
                         const kernels::EvalContext& ctx) {
  try {
    backend.load(compiled);
    ChildReport report;
    report.verify = backend.verify(ctx);
    if (report.verify.status == Status::ok) report.time = backend.time(ctx);
    return encode_child_report(report);
  } catch (const kernels::InfrastructureError& e) {
    throw std::runtime_error(std::string(kInfrastructurePrefix) + e.what());
  } catch (const kernels::CandidateFault& e) {
    throw std::runtime_error(std::string(kCandidatePrefix) + e.what());
  }
}

// Render, compile, run; returns with r.status and r.evidence set.
void cascade(jobs::EvalRecord& r, kernels::Backend& backend, const jobs::Candidate& c, const jobs::TaskManifest& m,
             const kernels::EvalContext& ctx) {
  if ((!c.backend.empty() && c.backend != backend.name()) || (!c.family.empty() && c.family != backend.family())) {
    r.status = Status::infra_error;
    r.evidence = "candidate is for " + c.backend + "/" + c.family + " but this rank runs the " + backend.name() + "/" +
                 backend.family() + " backend";
    return;
  }
  std::string source;
  try {
    source = backend.render(c);
  } catch (const std::invalid_argument& e) {
    r.status = Status::compile_error;
    r.evidence = std::string("could not render the source: ") + e.what();
    return;
  }
  r.source = source;
  const kernels::CompileResult compiled = backend.compile(source, c, ctx);
  r.compile_ms = compiled.compile_ms;
  r.registers = compiled.resources.registers;
  r.shared_bytes = compiled.resources.shared_bytes;
  r.spill_bytes = compiled.resources.spill_bytes;
  r.ptx = compiled.ptx;
  if (!compiled.ok) {
    r.status = compiled.status == Status::ok ? Status::compile_error : compiled.status;
    r.evidence = compiled.log.empty() ? "compile failed without a log" : tail_of(compiled.log, kCompileEvidenceBytes);
    return;
  }
  if (m.settings.compile_only) {
    r.status = Status::ok;
    r.evidence = "compile only: compiled in " + fixed(compiled.compile_ms, 0) + " ms, not run";
    return;
  }
  // The child verifies, then times: the whole child runs under the node's timing lock (or its GPU's), so no other
  // rank's candidate is timed (or verified) on these cores or that GPU meanwhile. Compiling, above, stays parallel.
  std::optional<TimingLock> lock;
  if (const auto path = timing_lock_for(backend)) lock.emplace(*path);
  const ChildOutcome outcome =
      run_sandboxed(limits_for(m.settings, backend), ctx.scratch, [&] { return run_in_child(backend, compiled, ctx); });
  const std::string lock_problem = lock ? lock->problem() : std::string();
  lock.reset();
  apply_outcome(r, outcome, m.settings);
  judge_timing(r, m.settings.target_spread);
  if (!lock_problem.empty()) r.evidence += "\ntimed without its timing lock: " + lock_problem;
  if (r.status != Status::ok && !compiled.log.empty()) {
    r.evidence += "\n--- compiler output (tail) ---\n" + tail_of(compiled.log, kWarningEvidenceBytes);
  }
}

}  // namespace

jobs::EvalRecord blamed_record(const jobs::Candidate& candidate, const jobs::TaskManifest& manifest, int rank,
                               int deaths) {
  jobs::EvalRecord r = record_skeleton(candidate, manifest, rank);
  r.status = Status::crash;
  r.evidence = "the evaluation task died " + std::to_string(deaths) +
               " times while this candidate was being evaluated (no record, no shard; the last time it ran alone "
               "on the task): the candidate is blamed, not the node, and is not run again";
  r.evaluated_at = jobs::iso8601_now();
  return r;
}

std::uint64_t candidate_seed(std::uint64_t task_seed, const std::string& candidate_id) {
  return jobs::splitmix64_finalise(task_seed ^ fnv1a64(candidate_id));
}

jobs::EvalRecord evaluate_candidate(kernels::Backend& backend, const jobs::Candidate& candidate,
                                    const jobs::TaskManifest& manifest, const fs::path& scratch_root, int rank,
                                    const CascadeOptions& options) {
  const auto start = Clock::now();
  jobs::EvalRecord r = record_skeleton(candidate, manifest, rank);
  const fs::path scratch = scratch_root / folder_name(candidate.id);
  try {
    fs::remove_all(scratch);  // a stale folder from an earlier, killed run must not leak files into this one
    fs::create_directories(scratch);
    const kernels::EvalContext ctx{&manifest.settings, scratch, candidate_seed(manifest.seed, candidate.id),
                                   manifest.target};
    cascade(r, backend, candidate, manifest, ctx);
  } catch (const std::exception& e) {
    r.status = Status::infra_error;
    r.evidence = std::string("evaluation harness failed: ") + e.what();
  }
  if (!options.keep_scratch) {
    std::error_code ignored;  // leftovers in a scratch folder are not worth failing a record over
    fs::remove_all(scratch, ignored);
  }
  r.evaluated_at = jobs::iso8601_now();
  r.harness_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return r;
}

}  // namespace kforge::mpi_eval
