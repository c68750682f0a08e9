#include "engine/serving_verdict.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "engine/engine_tolerance.hpp"
#include "engine/engine_verification.hpp"
#include "engine/reference_engine.hpp"
#include "engine/workload_trace.hpp"
#include "timing.hpp"

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

// Matrix flop of one run, counting every weight as one multiply-add per token fed (an upper bound): a run faster
// than the hardware's physical ceiling skipped work.
double flop_upper_bound(const jobs::EngineSpec& e, std::size_t weight_count) {
  const WorkloadTrace trace = make_trace(e.workload, e.model.vocab);
  double tokens = 0.0;
  for (const auto& r : trace.requests) tokens += static_cast<double>(r.prompt.size() + r.output_tokens);
  return 2.0 * static_cast<double>(weight_count) * tokens;
}

// "" when every logit row the candidate answered for `request` while timed is within the tolerance of the double
// reference's fed the same tokens (the tokens the candidate generated), and each token is a greedy choice of the
// reference (a near tie allowed); else what differs. An engine that is right on the verification trace but wrong
// under the serving load is caught here, even where the error is too small to change a greedy token.
std::string spot_check(const jobs::ModelSpec& model, const Weights& weights, const TraceRequest& request,
                       const std::vector<std::int32_t>& outputs, const std::vector<std::vector<float>>& rows,
                       std::size_t index) {
  const auto prompt_len = static_cast<std::int64_t>(request.prompt.size());
  const std::string which = "while serving the workload, request " + std::to_string(index);
  if (rows.size() != outputs.size())
    return which + ": " + std::to_string(rows.size()) + " logit rows kept for " + std::to_string(outputs.size()) +
           " tokens generated";
  ReferenceEngine reference(model, weights, 1, static_cast<int>(prompt_len + request.output_tokens));
  std::vector<double> logits = reference.step({SeqDesc{0, 0, prompt_len}}, request.prompt);
  for (std::size_t t = 0; t < outputs.size(); ++t) {
    if (const LogitCheck c = compare_logits(logits, rows[t], model.vocab); !c.ok)
      return which + ", output " + std::to_string(t) + ": " + c.evidence +
             " (right in verify(), wrong under the clock)";
    std::vector<float> chosen(static_cast<std::size_t>(model.vocab), 0.0f);  // the candidate's choice as a row
    chosen[static_cast<std::size_t>(outputs[t])] = 1.0f;
    if (!greedy_agrees(logits, chosen)) {
      return which + " got token " + std::to_string(outputs[t]) + " as output " + std::to_string(t) +
             " where the reference's greedy token is " + std::to_string(argmax(std::span<const double>(logits))) +
             " (right in verify(), wrong under the clock)";
    }
    if (t + 1 < outputs.size())
      logits = reference.step({SeqDesc{0, prompt_len + static_cast<std::int64_t>(t), 1}}, {outputs[t]});
  }
  return "";
}

}  // namespace

const jobs::EngineSpec& engine_of(const jobs::EvalSettings& s, const char* who) {
  if (s.engine.empty()) throw std::invalid_argument(std::string(who) + ": the evaluation settings carry no model");
  return s.engine;
}

BatchPolicy baseline_policy() { return BatchPolicy{16, 256, true}; }

EngineSizes engine_sizes_for(const jobs::EngineSpec& e, const BatchPolicy& policy) {
  const WorkloadTrace trace = make_trace(e.workload, e.model.vocab);
  const VerificationNeeds v = verification_needs();
  EngineSizes z;
  z.slots = std::max(v.slots, serving_slots(trace, policy));
  z.max_context = std::max(v.max_context, trace.max_context());
  z.most_sequences = std::max(v.most_sequences, policy.max_batch);
  z.most_tokens = std::max(v.most_tokens, most_step_tokens(policy));
  return z;
}

std::int64_t spot_checked_request(const jobs::EngineSpec& e, std::uint64_t seed) {
  return uniform_in(seed ^ kTimingStream, 0, e.workload.requests - 1);
}

ServedRuns serve_repeatedly(const jobs::EvalSettings& s, const jobs::EngineSpec& e, const BatchPolicy& policy,
                            const StepFn& step, std::int64_t keep) {
  const WorkloadTrace trace = make_trace(e.workload, e.model.vocab);
  const TimingPolicy timing = TimingPolicy::from(s);
  for (int w = 0; w < timing.warmup; ++w) serve(trace, policy, e.model.vocab, step);
  ServedRuns out;
  const auto started = std::chrono::steady_clock::now();
  for (;;) {
    ServingResult run = serve(trace, policy, e.model.vocab, step, keep);
    if (!run.failure.empty()) {
      out.failure = run.failure;
      break;
    }
    out.samples_ms.push_back(run.total_ms / static_cast<double>(std::max<std::int64_t>(1, run.output_tokens)));
    out.runs.push_back(std::move(run));
    const auto n = static_cast<int>(out.samples_ms.size());
    if (n >= timing.max_repeats) break;
    if (n >= timing.min_repeats && spread_of(out.samples_ms) < timing.target_spread) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count() >= timing.time_cap_s) break;
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

TimeResult judge_served(const ServedRuns& served, const jobs::EngineSpec& e, const Weights& weights, std::uint64_t seed,
                        const VerdictContext& v) {
  TimeResult result;
  result.samples_ms = served.samples_ms;
  if (!served.failure.empty()) {  // right in verify(), wrong under the clock
    result.status = jobs::Status::cheat_detected;
    result.evidence = "while serving the workload: " + served.failure;
    return result;
  }
  // One request of the first timed run, chosen from the evaluation's seed, re-checked against the reference.
  const WorkloadTrace trace = make_trace(e.workload, e.model.vocab);
  const auto checked = static_cast<std::size_t>(spot_checked_request(e, seed));
  const ServingResult& first = served.runs.front();
  if (const std::string wrong =
          spot_check(e.model, weights, trace.requests[checked], first.outputs[checked], first.kept_logits, checked);
      !wrong.empty()) {
    result.status = jobs::Status::cheat_detected;
    result.evidence = wrong;
    return result;
  }
  const ServingResult& run = median_run(served);
  result.metrics = metrics_of(run, static_cast<std::size_t>(e.workload.requests), v.peak_memory_mib);
  if (auto evidence =
          beyond_physical_ceiling(flop_upper_bound(e, weights.data.size()), run.total_ms, v.ceiling_flop_per_s)) {
    result.status = jobs::Status::cheat_detected;
    result.evidence = *evidence + v.ceiling_note;
  } else if (const std::string missed = slo_misses(run, e.workload); !missed.empty()) {
    result.status = jobs::Status::slo_missed;
    result.evidence = "served correctly but missed the workload's SLO: " + missed;
  }
  return result;
}

}  // namespace kforge::kernels::engine
