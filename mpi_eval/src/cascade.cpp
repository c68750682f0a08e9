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
#include "kforge/jobs/statistics.hpp"
#include "kforge/mpi_eval/child_payload.hpp"
#include "run_context.hpp"
#include "timing_lock.hpp"
#include "timing_verdict.hpp"

namespace kforge::mpi_eval {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
using jobs::Status;

constexpr std::size_t kOutputEvidenceBytes = 4096;
constexpr std::size_t kCompileEvidenceBytes = 4096;
constexpr std::size_t kWarningEvidenceBytes = 1024;

std::string tail_of(const std::string& text, std::size_t bytes) {
  return text.size() <= bytes ? text : "[...]" + text.substr(text.size() - bytes);
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string general(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

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

void fill_times(jobs::EvalRecord& r, const std::vector<double>& samples) {
  r.samples_ms = samples;
  r.sample_count = static_cast<std::int32_t>(samples.size());
  if (samples.empty()) return;
  const auto [fastest, slowest] = std::minmax_element(samples.begin(), samples.end());
  r.time_median_ms = jobs::median(samples);
  r.time_min_ms = *fastest;
  r.time_spread_rel = r.time_median_ms > 0 ? (*slowest - *fastest) / r.time_median_ms : jobs::kNaN;
}

std::string ok_summary(const jobs::EvalRecord& r) {
  return "verified: max abs error " + general(r.max_abs_error) + ", max rel error " + general(r.max_rel_error) + "; " +
         std::to_string(r.sample_count) + " samples, median " + fixed(r.time_median_ms, 4) + " ms, min " +
         fixed(r.time_min_ms, 4) + " ms, spread " + fixed(100.0 * r.time_spread_rel, 1) + "%";
}

void apply_report(jobs::EvalRecord& r, const ChildReport& report) {
  r.max_abs_error = report.verify.max_abs_error;
  r.max_rel_error = report.verify.max_rel_error;
  if (report.verify.status != Status::ok) {
    r.status = report.verify.status;
    r.evidence = report.verify.evidence.empty() ? "verification failed without evidence" : report.verify.evidence;
    r.failed_case = report.verify.failed_case;  // joins the campaign's validation set (learning.hpp)
    return;
  }
  if (!report.time) {
    r.status = Status::infra_error;
    r.evidence = "the child verified the candidate but reported no timing";
    return;
  }
  fill_times(r, report.time->samples_ms);
  r.metrics = report.time->metrics;
  r.status = report.time->status;
  if (r.status == Status::ok && r.sample_count == 0) {
    r.status = Status::infra_error;
    r.evidence = "timing produced no samples";
    return;
  }
  r.evidence = ok_summary(r);
  if (!report.time->evidence.empty()) r.evidence += "\n" + report.time->evidence;
}

std::string out_of_memory_text(const std::string& message, const jobs::EvalSettings& s) {
  return message + " (memory limit " + std::to_string(s.memory_limit_mb) + " MiB)";
}

// The child's body error text that marks the node, not the candidate, at fault (kernels::InfrastructureError).
constexpr std::string_view kInfrastructurePrefix = "infrastructure: ";
// ... and the one that says how the candidate's own process failed (kernels::CandidateFault): the evidence as is.
constexpr std::string_view kCandidatePrefix = "candidate: ";

// Status and evidence from how the candidate's child ended.
void apply_outcome(jobs::EvalRecord& r, const ChildOutcome& o, const jobs::EvalSettings& s) {
  if (returned_normally(o)) {
    try {
      apply_report(r, decode_child_report(o.payload));
    } catch (const std::invalid_argument& e) {
      r.status = Status::crash;  // the payload is the child's word; a candidate can garble it
      r.evidence = std::string("sent an unreadable report: ") + e.what();
    }
  } else if (is_sandbox_error(o)) {
    r.status = Status::infra_error;
    r.evidence = o.describe();
  } else if (is_body_error(o) && error_message(o).starts_with(kCandidatePrefix)) {
    r.status = Status::crash;
    r.evidence = error_message(o).substr(kCandidatePrefix.size());
  } else if (is_body_error(o) && error_message(o).starts_with(kInfrastructurePrefix)) {
    r.status = Status::infra_error;
    r.evidence = error_message(o).substr(kInfrastructurePrefix.size());
  } else if (is_body_error(o)) {
    r.status = Status::crash;
    const std::string message = error_message(o);
    r.evidence = message.starts_with(kOutOfMemoryPrefix) ? out_of_memory_text(message, s) : o.describe();
  } else {
    r.status = o.end == ChildEnd::timed_out ? Status::timeout : Status::crash;
    r.evidence = o.describe();
  }
  if (!o.output_tail.empty()) {
    r.evidence += "\n--- candidate output (tail) ---\n" + tail_of(o.output_tail, kOutputEvidenceBytes);
  }
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
  // The child verifies, then times: the whole child runs under the node's timing lock, so no other rank's
  // candidate is timed (or verified) on these cores meanwhile. Compiling, above, stays parallel.
  std::optional<TimingLock> lock;
  if (times_on_shared_cores(backend.name())) lock.emplace(timing_lock_path());
  const ChildOutcome outcome = run_sandboxed(limits_for(m.settings, backend.name()), ctx.scratch,
                                             [&] { return run_in_child(backend, compiled, ctx); });
  const std::string lock_problem = lock ? lock->problem() : std::string();
  lock.reset();
  apply_outcome(r, outcome, m.settings);
  judge_timing(r, m.settings.target_spread);
  if (!lock_problem.empty()) r.evidence += "\ntimed without the node's timing lock: " + lock_problem;
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

Limits limits_from(const jobs::EvalSettings& s) {
  Limits l;
  l.wall_s = s.wall_timeout_s;
  l.cpu_s = s.cpu_limit_s;
  l.memory_bytes = s.memory_limit_mb << 20;
  l.file_bytes = s.file_limit_mb << 20;
  l.forbid_processes = true;
  return l;
}

bool needs_device_address_space(std::string_view backend) { return backend == "cuda"; }

bool runs_candidate_code_apart(std::string_view backend) { return backend == "host"; }

Limits limits_for(const jobs::EvalSettings& s, std::string_view backend) {
  Limits l = limits_from(s);
  l.limit_address_space = !needs_device_address_space(backend);
  // The host harness forks the candidate process, which bans processes (and far more) for itself.
  l.forbid_processes = !runs_candidate_code_apart(backend);
  return l;
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
