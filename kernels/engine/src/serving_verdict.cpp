#include "kforge/engine/serving_verdict.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "kforge/engine/engine_verification.hpp"
#include "kforge/engine/envelope_verification.hpp"
#include "kforge/engine/physical_floor.hpp"
#include "kforge/engine/served_checks.hpp"
#include "kforge/engine/workload_trace.hpp"
#include "kforge/kernels/timing.hpp"

namespace kforge::kernels::engine {
namespace {

std::string fixed(double v, int digits = 3) {
  std::ostringstream out;
  out.precision(digits);
  out << std::fixed << v;
  return out.str();
}

std::vector<jobs::Metric> metrics_of(const ServingResult& r, std::size_t requests, double peak_mib) {
  std::vector<jobs::Metric> m = {
      {"output_tokens_per_s", "tokens/s", r.output_tokens_per_s},
      {"ttft_p50_ms", "ms", r.ttft_p50_ms},
      {"ttft_p99_ms", "ms", r.ttft_p99_ms},
      {"itl_p50_ms", "ms", r.itl_p50_ms},
      {"itl_p99_ms", "ms", r.itl_p99_ms},
      {"peak_memory_mb", "MiB", peak_mib},
      {"requests", "requests", static_cast<double>(requests)},
      {"output_tokens", "tokens", static_cast<double>(r.output_tokens)},
  };
  for (std::size_t o = 0; o < kOperators.size(); ++o)
    m.push_back({"op_share." + std::string(kOperators[o]), "1", r.op_share[o]});
  return m;
}

// "" when the workload's SLOs hold, else which figure missed which limit.
std::string slo_misses(const ServingResult& r, const jobs::WorkloadSpec& w) {
  std::string out;
  const auto check = [&](double figure, double limit, const char* what, const char* key) {
    if (limit <= 0.0 || figure <= limit) return;
    out += (out.empty() ? "" : "; ") + std::string(what) + " " + fixed(figure) + " ms exceeds the SLO of " +
           fixed(limit) + " ms (workload." + key + ")";
  };
  check(r.itl_p99_ms, w.slo_p99_itl_ms, "p99 inter-token latency", "slo.p99_itl_ms");
  check(r.ttft_p99_ms, w.slo_p99_ttft_ms, "p99 time to first token", "slo.p99_ttft_ms");
  return out;
}

double ms_since(std::chrono::steady_clock::time_point from) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - from).count();
}

}  // namespace

const jobs::EngineSpec& engine_of(const jobs::EvalSettings& s, const char* who) {
  if (s.engine.empty()) throw std::invalid_argument(std::string(who) + ": the evaluation settings carry no model");
  return s.engine;
}

BatchPolicy baseline_policy() { return BatchPolicy{16, 256, true}; }

EngineSizes engine_sizes_for(const jobs::EngineSpec& e, const BatchPolicy& policy) {
  // Every run serves a fresh trace: size for the workload's extremes, not for one trace drawn from it.
  const VerificationNeeds v = verification_needs();
  EngineSizes z;
  z.slots = std::max(v.slots, envelope_slots(e.workload, policy));
  z.max_context = std::max(v.max_context, e.workload.prompt_max + e.workload.output_max);
  z.most_sequences = std::max(v.most_sequences, policy.max_batch);
  z.most_tokens = std::max(v.most_tokens, most_step_tokens(policy));
  return z;
}

VerifyResult verify_served_engine(const jobs::EvalSettings& s, const jobs::EngineSpec& e, const BatchPolicy& policy,
                                  const Weights& weights, const ReferenceEngine& reference, std::uint64_t seed,
                                  const StepFn& step, double* envelope_ms, double tolerance) {
  const LogitsFn logits = [&](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens) {
    return step(seqs, tokens, RowWants{}).logits;  // whole rows: the traces compare every logit
  };
  const VerifyResult script = verify_engine(e.model, weights, seed, s.validation_cases, logits, tolerance);
  if (script.status != jobs::Status::ok) return script;
  const auto started = std::chrono::steady_clock::now();
  VerifyResult envelope = verify_envelope(e, policy, reference, seed, s.validation_cases, step, tolerance);
  if (envelope_ms != nullptr)
    *envelope_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  envelope.max_abs_error = std::max(envelope.max_abs_error, script.max_abs_error);
  envelope.max_rel_error = std::max(envelope.max_rel_error, script.max_rel_error);
  return envelope;
}

ServedRuns serve_repeatedly(const jobs::EvalSettings& s, const jobs::EngineSpec& e, const BatchPolicy& policy,
                            const FreshEngine& fresh, const ReferenceEngine* reference, double tolerance) {
  const TimingPolicy timing = TimingPolicy::from(s);
  const std::int64_t vocab = e.model.vocab;
  ServedRuns out;
  double serving_s = 0.0;
  for (int n = 0;; ++n) {
    const bool warm_up = n < timing.warmup;
    const std::string where =
        warm_up ? "warm-up run " + std::to_string(n + 1) : "timed run " + std::to_string(n - timing.warmup + 1);
    const WorkloadTrace trace = fresh_trace(e.workload, vocab, harness_secret());
    const LogitSampler sampler = reference != nullptr ? draw_sampler(vocab, harness_secret()) : LogitSampler{};
    const auto starting = std::chrono::steady_clock::now();
    const StepFn step = fresh();
    out.fresh_engine_ms += ms_since(starting);
    const auto started = std::chrono::steady_clock::now();
    ServingResult run = serve(trace, policy, vocab, step, reference != nullptr ? &sampler : nullptr);
    serving_s += std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    if (!run.failure.empty()) {
      out.failure = "while serving the workload (" + where + "): " + run.failure;
      break;
    }
    if (reference != nullptr) {
      const auto checking = std::chrono::steady_clock::now();
      const std::vector<std::size_t> which = requests_to_check(run, harness_secret());  // drawn only now
      const CheckOutcome check = check_requests(*reference, trace, run, sampler, which, where, tolerance);
      out.check_ms += ms_since(checking);
      ++out.checked_runs;
      out.checked_requests += static_cast<std::int64_t>(which.size());
      out.max_rel_error = std::max(out.max_rel_error, check.max_rel_error);
      if (!check.wrong.empty()) {
        out.failure = check.wrong + " (right in verify(), wrong under the clock)";
        break;
      }
      run.sampled = {};
    }
    if (warm_up) continue;
    out.samples_ms.push_back(run.total_ms / static_cast<double>(std::max<std::int64_t>(1, run.output_tokens)));
    out.runs.push_back(std::move(run));
    const auto taken = static_cast<int>(out.samples_ms.size());
    if (taken >= timing.max_repeats) break;
    if (taken >= timing.min_repeats && spread_of(out.samples_ms) < timing.target_spread) break;
    if (serving_s >= timing.time_cap_s) break;
  }
  return out;
}

const ServingResult& median_run(const ServedRuns& r) {
  const double m = median_of(r.samples_ms);
  std::size_t best = 0;
  for (std::size_t n = 1; n < r.samples_ms.size(); ++n)
    if (std::abs(r.samples_ms[n] - m) < std::abs(r.samples_ms[best] - m)) best = n;
  return r.runs[best];
}

TimeResult judge_served(const ServedRuns& served, const jobs::EngineSpec& e, const Weights& weights,
                        const VerdictContext& v) {
  TimeResult result;
  result.samples_ms = served.samples_ms;
  if (!served.failure.empty()) {  // a step failed, or a check after a run disagreed with the reference
    result.status = jobs::Status::cheat_detected;
    result.evidence = served.failure;
    return result;
  }
  const ServingResult& run = median_run(served);
  result.metrics = metrics_of(run, static_cast<std::size_t>(e.workload.requests), v.peak_memory_mib);
  result.metrics.push_back({"checked_requests", "requests", static_cast<double>(served.checked_requests)});
  result.metrics.push_back({"memory_bandwidth_fraction", "1",
                            bandwidth_fraction(e.model, run, v.memory_bytes_per_s, weights.precision, v.activations)});
  result.metrics.push_back({"node_read_bandwidth", "GB/s", v.memory_bytes_per_s / 1e9});
  // What keeping the engine honest cost beside the script and the timed serving itself (bench/engine_checks_cost.py).
  result.metrics.push_back({"envelope_ms", "ms", v.envelope_ms});
  result.metrics.push_back({"run_checks_ms", "ms", served.check_ms});
  result.metrics.push_back({"fresh_engine_ms", "ms", served.fresh_engine_ms});
  if (std::string floor =
          beyond_physical_floor(e.model, served.runs, v.memory_bytes_per_s, weights.precision, v.activations);
      !floor.empty()) {
    result.status = jobs::Status::cheat_detected;
    result.evidence = floor;
  } else if (auto evidence = beyond_physical_ceiling(
                 2.0 * static_cast<double>(weights.data.size()) * static_cast<double>(run.tokens_fed), run.total_ms,
                 v.ceiling_flop_per_s)) {
    result.status = jobs::Status::cheat_detected;
    result.evidence = *evidence + v.ceiling_note;
  } else if (const std::string missed = slo_misses(run, e.workload); !missed.empty()) {
    result.status = jobs::Status::slo_missed;
    result.evidence = "served correctly but missed the workload's SLO: " + missed;
  }
  return result;
}

}  // namespace kforge::kernels::engine
