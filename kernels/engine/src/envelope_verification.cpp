#include "kforge/engine/envelope_verification.hpp"

#include <algorithm>
#include <random>

#include "kforge/engine/served_checks.hpp"
#include "kforge/jobs/validation_case.hpp"

namespace kforge::kernels::engine {

std::int64_t envelope_slots(const jobs::WorkloadSpec& workload, const BatchPolicy& policy) {
  return std::max<std::int64_t>(1, workload.arrival_rate > 0.0 ? policy.max_batch : workload.concurrency);
}

WorkloadTrace envelope_trace(const jobs::WorkloadSpec& workload, const BatchPolicy& policy, std::int64_t vocab,
                             std::uint64_t seed, int wave) {
  const std::int64_t slots = envelope_slots(workload, policy);
  jobs::WorkloadSpec w = workload;  // make_trace checks the ranges; its own draws are replaced below
  w.seed = seed;
  w.requests = slots;
  w.arrival_rate = 0.0;
  w.concurrency = slots;
  WorkloadTrace trace = make_trace(w, vocab);
  std::mt19937_64 rng(seed ^ (wave == 0 ? 0x5851f42d4c957f2dull : 0x14057b7ef767814full));
  for (std::int64_t r = 0; r < slots; ++r) {
    TraceRequest& req = trace.requests[static_cast<std::size_t>(r)];
    // Wave 0: request 0 at the extremes, the others at the workload's shortest (the step is as full either way,
    // and the engine's time here is verification's cost). Wave 1: half that, so that what a slot held before lies
    // beyond what it holds now.
    std::int64_t prompt = workload.prompt_min, outputs = workload.output_min;
    if (wave == 0 && r == 0) {
      prompt = workload.prompt_max;
      outputs = workload.output_max;
    } else if (wave == 1) {
      prompt = (workload.prompt_min + 1) / 2;
      outputs = (workload.output_min + 1) / 2;
    }
    req.prompt.resize(static_cast<std::size_t>(prompt));
    for (auto& token : req.prompt) token = static_cast<std::int32_t>(uniform_in(rng(), 0, vocab - 1));
    req.output_tokens = outputs;
  }
  return trace;
}

std::vector<std::uint64_t> envelope_seeds(std::uint64_t seed, const std::vector<std::string>& validation_cases) {
  std::vector<std::uint64_t> seeds{jobs::standard_case_seed(seed, 1)};
  for (const std::string& text : validation_cases) {
    const auto parsed = jobs::parse_case(text);
    if (parsed && parsed->keys.count("engine_envelope") == 1) seeds.push_back(parsed->seed);
  }
  return seeds;
}

VerifyResult verify_envelope(const jobs::EngineSpec& engine, const BatchPolicy& policy,
                             const ReferenceEngine& reference, std::uint64_t seed,
                             const std::vector<std::string>& validation_cases, const StepFn& step, double tolerance) {
  VerifyResult result;
  result.max_abs_error = 0.0;
  result.max_rel_error = 0.0;
  const std::vector<std::uint64_t> seeds = envelope_seeds(seed, validation_cases);
  for (std::size_t n = 0; n < seeds.size(); ++n) {
    const std::string case_of = " seed=" + std::to_string(seeds[n]);
    const std::string from_validation = n > 0 ? "\ncaught by the campaign's validation set: " : "";
    std::int64_t first_request = 0;  // of this wave, counted over both waves
    for (int wave = 0; wave < 2; ++wave) {
      const WorkloadTrace trace = envelope_trace(engine.workload, policy, engine.model.vocab, seeds[n], wave);
      const LogitSampler sampler = draw_sampler(engine.model.vocab, harness_secret());
      const ServingResult run = serve(trace, policy, engine.model.vocab, step, &sampler);
      const std::string where = "serving envelope, wave " + std::to_string(wave + 1);
      if (!run.failure.empty()) {
        result.status = jobs::Status::wrong_result;
        result.failed_case = "engine_envelope=1 request=" + std::to_string(first_request) + case_of;
        result.evidence = where + ": " + run.failure + from_validation;
        return result;
      }
      std::vector<std::size_t> every(trace.requests.size());
      for (std::size_t r = 0; r < every.size(); ++r) every[r] = r;
      const CheckOutcome check = check_requests(reference, trace, run, sampler, every, where, tolerance);
      result.max_abs_error = std::max(result.max_abs_error, check.max_abs_error);
      result.max_rel_error = std::max(result.max_rel_error, check.max_rel_error);
      if (!check.wrong.empty()) {
        result.status = jobs::Status::wrong_result;
        result.failed_case = "engine_envelope=1 request=" + std::to_string(first_request + check.request) + case_of;
        result.evidence = check.wrong + from_validation + (from_validation.empty() ? "" : result.failed_case);
        return result;
      }
      first_request += static_cast<std::int64_t>(trace.requests.size());
    }
  }
  result.status = jobs::Status::ok;
  return result;
}

}  // namespace kforge::kernels::engine
