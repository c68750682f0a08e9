#include "engine/host_engine_backend.hpp"

#include <chrono>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "engine/engine_call.hpp"
#include "engine/engine_template.hpp"
#include "engine/engine_tolerance.hpp"
#include "engine/engine_verification.hpp"
#include "engine/reference_engine.hpp"
#include "engine/workload_trace.hpp"
#include "host/cxx_compile.hpp"
#include "timing.hpp"

namespace kforge::kernels::engine {
namespace {

constexpr const char* kBackend = "host engine backend";

const jobs::EngineSpec& engine_of(const jobs::EvalSettings& s) {
  if (s.engine.empty()) throw std::invalid_argument("host engine backend: the evaluation settings carry no model");
  return s.engine;
}

// What kInit must provide: the verification trace's needs and the serving trace's under `policy`.
EngineSizes sizes_for(const jobs::EvalSettings& s, const BatchPolicy& policy) {
  const WorkloadTrace trace = make_trace(engine_of(s).workload, engine_of(s).model.vocab);
  const VerificationNeeds v = verification_needs();
  EngineSizes z;
  z.slots = std::max(v.slots, serving_slots(trace, policy));
  z.max_context = std::max(v.max_context, trace.max_context());
  z.most_sequences = std::max(v.most_sequences, policy.max_batch);
  z.most_tokens = std::max(v.most_tokens, most_step_tokens(policy));
  return z;
}

std::string fixed(double v, int digits = 3) {
  std::ostringstream out;
  out.precision(digits);
  out << std::fixed << v;
  return out.str();
}

struct ServedRuns {
  std::vector<double> samples_ms;  // ms per output token of each full run
  std::vector<ServingResult> runs;
  std::string failure;
};

// Serves the whole trace as often as the timing policy allows (at least once, warm-up runs first).
ServedRuns serve_repeatedly(host::CandidateProcess& process, const jobs::EvalSettings& s, const BatchPolicy& policy) {
  const jobs::EngineSpec& e = engine_of(s);
  const WorkloadTrace trace = make_trace(e.workload, e.model.vocab);
  const StepFn step = [&](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens) {
    return step_engine(process, seqs, tokens, e.model.vocab);
  };
  const TimingPolicy timing = TimingPolicy::from(s);
  for (int w = 0; w < timing.warmup; ++w) serve(trace, policy, e.model.vocab, step);
  ServedRuns out;
  const auto started = std::chrono::steady_clock::now();
  for (;;) {
    ServingResult run = serve(trace, policy, e.model.vocab, step);
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

// The run whose sample is the median: its figures are the candidate's.
const ServingResult& median_run(const ServedRuns& r) {
  const double m = median_of(r.samples_ms);
  std::size_t best = 0;
  for (std::size_t n = 1; n < r.samples_ms.size(); ++n)
    if (std::abs(r.samples_ms[n] - m) < std::abs(r.samples_ms[best] - m)) best = n;
  return r.runs[best];
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
// than the host's physical ceiling skipped work.
double flop_upper_bound(const jobs::EngineSpec& e, std::size_t weight_count) {
  const WorkloadTrace trace = make_trace(e.workload, e.model.vocab);
  double tokens = 0.0;
  for (const auto& r : trace.requests) tokens += static_cast<double>(r.prompt.size() + r.output_tokens);
  return 2.0 * static_cast<double>(weight_count) * tokens;
}

// "" when every token the candidate generated for `request` while timed is a greedy choice of the double
// reference fed the same tokens (a near tie within the tolerance allowed); else what differs. An engine that is
// right on the verification trace but wrong under the serving load is caught here.
std::string spot_check(const jobs::ModelSpec& model, const Weights& weights, const TraceRequest& request,
                       const std::vector<std::int32_t>& outputs, std::size_t index) {
  const auto prompt_len = static_cast<std::int64_t>(request.prompt.size());
  ReferenceEngine reference(model, weights, 1, static_cast<int>(prompt_len + request.output_tokens));
  std::vector<double> logits = reference.step({SeqDesc{0, 0, prompt_len}}, request.prompt);
  for (std::size_t t = 0; t < outputs.size(); ++t) {
    std::vector<float> chosen(static_cast<std::size_t>(model.vocab), 0.0f);  // the candidate's choice as a row
    chosen[static_cast<std::size_t>(outputs[t])] = 1.0f;
    if (!greedy_agrees(logits, chosen)) {
      return "while serving the workload, request " + std::to_string(index) + " got token " +
             std::to_string(outputs[t]) + " as output " + std::to_string(t) +
             " where the reference's greedy token is " + std::to_string(argmax(std::span<const double>(logits))) +
             " (right in verify(), wrong under the clock)";
    }
    if (t + 1 < outputs.size())
      logits = reference.step({SeqDesc{0, prompt_len + static_cast<std::int64_t>(t), 1}}, {outputs[t]});
  }
  return "";
}

}  // namespace

BatchPolicy HostEngineBackend::baseline_policy() { return BatchPolicy{16, 256, true}; }

std::string HostEngineBackend::render(const jobs::Candidate& c) const {
  batch_policy_from_genome(c.genome);  // a bad batching value is the candidate's error, before compiling
  if (!c.source.empty()) return c.source;
  return render_engine_source(engine_params_from_genome(c.genome));
}

CompileResult HostEngineBackend::compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) {
  policy_ = batch_policy_from_genome(c.genome);
  return host::compile_shared_object(source, c, ctx, kBackend);
}

void HostEngineBackend::load(const CompileResult& compiled) {
  process_ = std::make_unique<host::CandidateProcess>(compiled.artefact, kEntryPoint, &invoke_engine,
                                                      compiled.artefact.parent_path());
  process_->start_now();
  initialised_ = false;
}

host::CandidateProcess& HostEngineBackend::process() const {
  if (!process_) throw std::logic_error("host engine backend: verify()/time() called before a successful load()");
  return *process_;
}

void HostEngineBackend::ensure_initialised(const EvalContext& ctx) {
  if (initialised_) return;
  const jobs::EvalSettings& s = host::settings_of(ctx, kBackend);
  if (!weights_) weights_ = load_weights(engine_of(s).model);
  init_engine(process(), engine_of(s).model, *weights_, sizes_for(s, policy_));
  initialised_ = true;
}

VerifyResult HostEngineBackend::verify(const EvalContext& ctx) {
  const jobs::EvalSettings& s = host::settings_of(ctx, kBackend);
  ensure_initialised(ctx);
  const jobs::ModelSpec& model = engine_of(s).model;
  const LogitsFn candidate = [&](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens) {
    return step_engine(process(), seqs, tokens, model.vocab).logits;
  };
  VerifyResult first;
  const std::vector<std::uint64_t> seeds = verification_seeds(ctx.seed, s.validation_cases);
  for (std::size_t n = 0; n < seeds.size(); ++n) {
    VerifyResult r = verify_engine_trace(model, *weights_, seeds[n], candidate);
    if (r.status != jobs::Status::ok) {
      if (n > 0) r.evidence += "\ncaught by the campaign's validation set: " + r.failed_case;
      return r;
    }
    if (n == 0) first = r;
  }
  return first;
}

TimeResult HostEngineBackend::time(const EvalContext& ctx) {
  const jobs::EvalSettings& s = host::settings_of(ctx, kBackend);
  ensure_initialised(ctx);
  const jobs::EngineSpec& e = engine_of(s);
  const ServedRuns served = serve_repeatedly(process(), s, policy_);
  TimeResult result;
  result.samples_ms = served.samples_ms;
  if (!served.failure.empty()) {  // right in verify(), wrong under the clock
    result.status = jobs::Status::cheat_detected;
    result.evidence = "while serving the workload: " + served.failure;
    return host::with_confinement_note(std::move(result), process().confinement());
  }
  // One request of the first timed run, chosen from the evaluation's seed, re-checked against the reference.
  const WorkloadTrace trace = make_trace(e.workload, e.model.vocab);
  const auto checked = static_cast<std::size_t>(uniform_in(ctx.seed ^ kTimingStream, 0, e.workload.requests - 1));
  if (const std::string wrong =
          spot_check(e.model, *weights_, trace.requests[checked], served.runs.front().outputs[checked], checked);
      !wrong.empty()) {
    result.status = jobs::Status::cheat_detected;
    result.evidence = wrong;
    return host::with_confinement_note(std::move(result), process().confinement());
  }
  const ServingResult& run = median_run(served);
  const std::size_t requests = static_cast<std::size_t>(e.workload.requests);
  result.metrics = metrics_of(run, requests, process().peak_resident_mib());
  if (auto evidence =
          beyond_physical_ceiling(flop_upper_bound(e, weights_->data.size()), run.total_ms, kHostCeilingFlopPerS)) {
    result.status = jobs::Status::cheat_detected;
    result.evidence = *evidence;
  } else if (const std::string missed = slo_misses(run, e.workload); !missed.empty()) {
    result.status = jobs::Status::slo_missed;
    result.evidence = "served correctly but missed the workload's SLO: " + missed;
  }
  return host::with_confinement_note(std::move(result), process().confinement());
}

std::vector<jobs::Baseline> HostEngineBackend::time_baselines(const EvalContext& ctx) {
  const jobs::EvalSettings& s = host::settings_of(ctx, kBackend);
  const jobs::EngineSpec& e = engine_of(s);
  for (const auto& name : s.baselines) {
    if (name != "reference")
      throw std::invalid_argument("host engine backend: unknown baseline '" + name + "' (known: reference)");
  }
  std::vector<jobs::Baseline> out;
  if (s.baselines.empty()) return out;
  Weights weights = load_weights(e.model);
  const std::string host = jobs::host_name();
  for (const auto& name : s.baselines) {
    // The double reference engine behind the same ABI, in a process of its own, on the same trace and clock.
    host::CandidateProcess process(reinterpret_cast<void*>(&reference_engine_entry), &invoke_engine, ctx.scratch);
    init_engine(process, e.model, weights, sizes_for(s, baseline_policy()));
    const ServedRuns served = serve_repeatedly(process, s, baseline_policy());
    if (!served.failure.empty()) throw std::runtime_error("the reference baseline failed: " + served.failure);
    out.push_back(baseline_from(name, TimedSamples{served.samples_ms, ""}, host));
  }
  return out;
}

}  // namespace kforge::kernels::engine
