// What keeps an engine honest under the clock, piece by piece (kernels/engine/include/kforge/engine/served_checks.hpp,
// envelope_verification.hpp, physical_floor.hpp, ReferenceEngine::teacher_forced): each test could fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

#include "engine_model_support.hpp"
#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/envelope_verification.hpp"
#include "kforge/engine/physical_floor.hpp"
#include "kforge/engine/served_checks.hpp"
#include "kforge/engine/serving_verdict.hpp"

namespace kforge::kernels::engine {
namespace {

using model_testing::small_model;

// The reference's step() fed a sequence one token at a time, its logits at every position from `from`.
std::vector<double> step_by_step(ReferenceEngine& ref, const std::vector<std::int32_t>& tokens, std::int64_t from) {
  std::vector<double> rows;
  for (std::size_t t = 0; t < tokens.size(); ++t) {
    const std::vector<double> row = ref.step({SeqDesc{0, static_cast<std::int64_t>(t), 1}}, {tokens[t]});
    if (static_cast<std::int64_t>(t) >= from) rows.insert(rows.end(), row.begin(), row.end());
  }
  return rows;
}

TEST(ReferenceTeacherForced, EqualsTheTokenByTokenReferenceOnEveryArchitecture) {
  std::vector<jobs::ModelSpec> models = {small_model("llama"), small_model("llama", false), small_model("kimi-linear"),
                                         small_model("kimi-linear", false, 1)};
  models.push_back(small_model("llama"));
  models.back().head_dim = 24;  // heads x head_dim (96) wider than hidden (64)
  models.push_back(small_model("llama", false));
  models.back().qkv_bias = true;  // Qwen2
  for (const jobs::ModelSpec& m : models) {
    const Weights w = load_weights(m);
    ReferenceEngine ref(m, w, 1, 64);
    const std::vector<std::int32_t> a = {3, 17, 200, 5, 5, 91, 0, 255, 42, 7, 19, 150};
    const std::vector<std::int32_t> b = {250, 1, 2, 3, 4, 60, 61};
    const std::vector<ForcedSequence> seqs = {{a, 4}, {b, 0}};
    const auto forced = ref.teacher_forced(seqs);
    ASSERT_EQ(forced.size(), 2u);
    const std::vector<double> want_a = step_by_step(ref, a, 4), want_b = step_by_step(ref, b, 0);
    ASSERT_EQ(forced[0].size(), want_a.size());
    ASSERT_EQ(forced[1].size(), want_b.size());
    double worst = 0.0;
    for (std::size_t i = 0; i < want_a.size(); ++i) worst = std::max(worst, std::abs(forced[0][i] - want_a[i]));
    for (std::size_t i = 0; i < want_b.size(); ++i) worst = std::max(worst, std::abs(forced[1][i] - want_b[i]));
    EXPECT_LT(worst, 1e-11) << m.architecture << " tied " << m.tied_embeddings << " head_dim " << m.head_dim;
  }
}

TEST(ReferenceTeacherForced, RefusesEmptySequencesAndRowsOutsideThem) {
  const jobs::ModelSpec m = small_model("llama");
  const ReferenceEngine ref(m, load_weights(m), 1, 8);
  const std::vector<std::int32_t> tokens = {1, 2, 3}, bad = {1, 256};
  EXPECT_THROW(ref.teacher_forced(std::vector<ForcedSequence>{{tokens, 3}}), std::invalid_argument);
  EXPECT_THROW(ref.teacher_forced(std::vector<ForcedSequence>{{{}, 0}}), std::invalid_argument);
  EXPECT_THROW(ref.teacher_forced(std::vector<ForcedSequence>{{bad, 0}}), std::invalid_argument);
}

TEST(HarnessSecrets, DifferEveryTimeAndSampleDistinctSortedColumns) {
  std::set<std::uint64_t> secrets;
  for (int n = 0; n < 16; ++n) secrets.insert(harness_secret());
  EXPECT_EQ(secrets.size(), 16u);
  EXPECT_EQ(draw_sampler(300, 1).columns.size(), 300u);  // a small vocabulary is kept whole
  const LogitSampler a = draw_sampler(50000, 1), b = draw_sampler(50000, 2);
  ASSERT_EQ(a.columns.size(), static_cast<std::size_t>(kSampledColumns));
  EXPECT_TRUE(std::is_sorted(a.columns.begin(), a.columns.end()));
  EXPECT_EQ(std::set<std::uint32_t>(a.columns.begin(), a.columns.end()).size(), a.columns.size());
  EXPECT_LT(a.columns.back(), 50000u);
  EXPECT_NE(a.columns, b.columns);
}

TEST(HarnessSecrets, FreshTracesKeepTheWorkloadsLengthsAndChangeTokensAndOrder) {
  jobs::WorkloadSpec w;
  w.requests = 12;
  w.prompt_min = 5;
  w.prompt_max = 40;
  w.output_min = 2;
  w.output_max = 9;
  w.concurrency = 4;
  const WorkloadTrace base = make_trace(w, 1000), a = fresh_trace(w, 1000, 1), b = fresh_trace(w, 1000, 2);
  const auto lengths = [](const WorkloadTrace& t) {
    std::vector<std::pair<std::size_t, std::int64_t>> out;
    for (const auto& r : t.requests) out.emplace_back(r.prompt.size(), r.output_tokens);
    return out;
  };
  const auto sorted = [](auto v) {
    std::sort(v.begin(), v.end());
    return v;
  };
  EXPECT_EQ(sorted(lengths(a)), sorted(lengths(base)));  // the same work in every run
  EXPECT_EQ(sorted(lengths(b)), sorted(lengths(base)));
  EXPECT_NE(lengths(a), lengths(b));  // dealt to the requests in another order
  std::size_t same_prompts = 0;
  for (std::size_t r = 0; r < 12; ++r)
    for (const WorkloadTrace* other : {&b, &base}) same_prompts += a.requests[r].prompt == other->requests[r].prompt;
  EXPECT_EQ(same_prompts, 0u);
}

TEST(HarnessSecrets, EverySlotIsCheckedAndWhichRequestOfItIsNotPredictable) {
  ServingResult run;
  run.slot_of = {0, 1, 2, 0, 1, 2, 0, 1, 2, 3};
  std::map<std::size_t, int> picked;
  for (std::uint64_t secret = 0; secret < 60; ++secret) {
    const std::vector<std::size_t> which = requests_to_check(run, secret);
    ASSERT_EQ(which.size(), 4u);
    std::set<std::int64_t> slots;
    for (const std::size_t r : which) {
      slots.insert(run.slot_of[r]);
      ++picked[r];
    }
    EXPECT_EQ(slots.size(), 4u);
  }
  EXPECT_EQ(picked.size(), 10u);  // every request of a slot is sometimes the checked one
}

// A run served by the reference itself (through serve()), then checked: agrees; one sampled logit or one token moved
// disagrees, naming the request, its slot and the output.
TEST(ServedChecks, TheReferenceAgreesWithItselfAndOneMovedLogitOrTokenIsNamed) {
  const jobs::ModelSpec m = small_model("kimi-linear");
  const Weights w = load_weights(m);
  ReferenceEngine served_by(m, w, 4, 64), checker(m, w, 1, 1);
  jobs::WorkloadSpec spec;
  spec.requests = 6;
  spec.prompt_min = 3;
  spec.prompt_max = 20;
  spec.output_min = 2;
  spec.output_max = 5;
  spec.concurrency = 3;
  const WorkloadTrace trace = fresh_trace(spec, m.vocab, 9);
  const StepFn step = [&](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens, const RowWants&) {
    const auto logits = served_by.step({seqs.begin(), seqs.end()}, {tokens.begin(), tokens.end()});
    return StepOutcome{std::vector<float>(logits.begin(), logits.end()), 1.0, {}, {}};
  };
  const LogitSampler sampler = draw_sampler(m.vocab, 4);
  ServingResult run = serve(trace, BatchPolicy{2, 16, true}, m.vocab, step, &sampler);
  std::vector<std::size_t> all(6);
  for (std::size_t r = 0; r < 6; ++r) all[r] = r;
  const CheckOutcome good = check_requests(checker, trace, run, sampler, all, "run 1");
  EXPECT_EQ(good.wrong, "");
  EXPECT_LT(good.max_rel_error, 1e-6);
  EXPECT_EQ(good.rows, [&] {
    std::int64_t n = 0;
    for (const auto& r : trace.requests) n += r.output_tokens;
    return n;
  }());

  ServingResult moved = run;
  const std::size_t width = sampler.columns.size() + 1;
  moved.sampled[4][width + 17] *= 1.01f;  // request 4, output 1, column 17
  const CheckOutcome bad = check_requests(checker, trace, moved, sampler, all, "run 1");
  EXPECT_EQ(bad.request, 4);
  EXPECT_NE(bad.wrong.find("run 1, request 4 (slot " + std::to_string(run.slot_of[4]) + "), output 1: logit of token"),
            std::string::npos)
      << bad.wrong;

  ServingResult token = run;
  token.outputs[2][0] = (token.outputs[2][0] + 1) % static_cast<std::int32_t>(m.vocab);
  const CheckOutcome wrong_token = check_requests(checker, trace, token, sampler, all, "run 1");
  EXPECT_EQ(wrong_token.request, 2);
  EXPECT_NE(wrong_token.wrong.find("output 0:"), std::string::npos) << wrong_token.wrong;
}

// The envelope: every slot twice (two waves on one engine), request 0 at the longest context, the first step as full
// as the policy allows and holding the largest chunk.
TEST(EnvelopeVerification, TheWavesReachEverySlotTwiceTheFullestStepTheLargestChunkAndTheLongestContext) {
  jobs::WorkloadSpec w;
  w.requests = 30;
  w.prompt_min = 8;
  w.prompt_max = 70;
  w.output_min = 3;
  w.output_max = 11;
  w.concurrency = 6;
  const BatchPolicy policy{4, 32, true};
  std::int64_t most_sequences = 0, largest_chunk = 0;
  std::map<std::int64_t, int> restarts;  // sequences that start a request at position 0, per slot
  const StepFn step = [&](std::span<const SeqDesc> seqs, std::span<const std::int32_t>, const RowWants&) {
    most_sequences = std::max<std::int64_t>(most_sequences, static_cast<std::int64_t>(seqs.size()));
    for (const SeqDesc& s : seqs) {
      largest_chunk = std::max(largest_chunk, s.token_count);
      restarts[s.slot] += s.start_position == 0 ? 1 : 0;
    }
    return StepOutcome{std::vector<float>(seqs.size() * 500, 0.0f), 1.0, {}, {}};
  };
  for (int wave = 0; wave < 2; ++wave) {
    const WorkloadTrace trace = envelope_trace(w, policy, 500, 3, wave);
    ASSERT_EQ(trace.requests.size(), 6u);
    EXPECT_EQ(trace.max_context(),
              wave == 0 ? w.prompt_max + w.output_max : (w.prompt_min + 1) / 2 + (w.output_min + 1) / 2);
    serve(trace, policy, 500, step);
  }
  EXPECT_EQ(most_sequences, 4);
  EXPECT_EQ(largest_chunk, 32);
  ASSERT_EQ(restarts.size(), 6u);
  for (const auto& [slot, n] : restarts) EXPECT_EQ(n, 2) << "slot " << slot;
  EXPECT_EQ(envelope_slots(w, policy), 6);
  w.arrival_rate = 5.0;  // an open loop keeps max_batch slots busy
  EXPECT_EQ(envelope_slots(w, policy), 4);
}

TEST(PhysicalFloor, CountsEveryWeightPerStepAndTheCachesEachSequenceReads) {
  jobs::ModelSpec m = small_model("kimi-linear");  // layer 0 KDA, layer 1 attention
  ServingResult run;
  run.steps = 10;
  run.positions_read = 100;
  run.sequence_steps = 20;
  double weights = 0.0;
  for (const TensorInfo& t : tensor_list(m)) weights += static_cast<double>(t.elements());
  const double expected =
      10 * 4.0 * weights + 100 * 2.0 * 4.0 * m.kv_heads * m.head_dim + 20 * 4.0 * m.heads * m.head_dim * m.head_dim;
  EXPECT_DOUBLE_EQ(least_bytes_read(m, run, WeightPrecision::fp32), expected);
  // An engine of bf16 activations may keep its KV cache in bf16: its positions count 2 bytes a value.
  EXPECT_DOUBLE_EQ(least_bytes_read(m, run, WeightPrecision::fp32, ActivationPrecision::bf16),
                   expected - 100 * 2.0 * 2.0 * m.kv_heads * m.head_dim);
  m.tied_embeddings = false;  // an untied model's embedding table is read only at its tokens' rows
  double untied = 0.0;
  for (const TensorInfo& t : tensor_list(m)) untied += static_cast<double>(t.elements());
  EXPECT_DOUBLE_EQ(weight_bytes_per_step(m, WeightPrecision::fp32),
                   4.0 * (untied - static_cast<double>(m.vocab * m.hidden)));
}

TEST(PhysicalFloor, ARunFasterThanTheNodesBandwidthAllowsIsNamedWithItsFigures) {
  const jobs::ModelSpec m = small_model("llama");
  ServingResult honest, fast;
  honest.steps = fast.steps = 100;
  const double bytes = least_bytes_read(m, honest, WeightPrecision::fp32), bandwidth = 1e10;  // 10 GB/s
  honest.total_ms = bytes / bandwidth * 1e3;                                                  // exactly at the limit
  fast.total_ms = honest.total_ms / (2 * kFloorMargin);
  const std::vector<ServingResult> ok_runs = {honest, honest}, runs = {honest, fast};
  EXPECT_EQ(beyond_physical_floor(m, ok_runs, bandwidth, WeightPrecision::fp32), "");
  const std::string evidence = beyond_physical_floor(m, runs, bandwidth, WeightPrecision::fp32);
  EXPECT_NE(evidence.find("timed run 2 served in"), std::string::npos) << evidence;
  EXPECT_NE(evidence.find("below its physical floor"), std::string::npos) << evidence;
  EXPECT_EQ(beyond_physical_floor(m, runs, 0.0, WeightPrecision::fp32),
            "");  // no bandwidth known (a fake GPU): no floor
  EXPECT_NEAR(bandwidth_fraction(m, honest, bandwidth, WeightPrecision::fp32), 1.0, 1e-12);
}

TEST(PhysicalFloor, TheNodesReadBandwidthIsMeasured) {
  const double bw = measure_read_bandwidth(std::size_t{8} << 20, usable_cpus());
  EXPECT_GT(bw, 1e8);   // above 100 MB/s on anything that runs this
  EXPECT_LT(bw, 1e13);  // below 10 TB/s: a read that was optimised away would be faster
}

// serve_repeatedly with engines that are the reference itself, one per run: every run (the warm-up too) asks for a
// fresh engine and serves a trace of its own, and after every run one request per slot is checked.
TEST(ServeRepeatedly, EveryRunIsAFreshTraceOnAFreshEngineAndIsChecked) {
  jobs::EngineSpec e;
  e.model = small_model("llama");
  e.workload.requests = 7;
  e.workload.prompt_min = 3;
  e.workload.prompt_max = 12;
  e.workload.output_min = 2;
  e.workload.output_max = 4;
  e.workload.concurrency = 3;
  jobs::EvalSettings s;
  s.warmup = 1;
  s.min_repeats = 3;
  s.max_repeats = 3;
  s.target_spread = 0.0;
  s.time_cap_s = 60;
  const Weights w = load_weights(e.model);
  const ReferenceEngine checker(e.model, w, 1, 1);
  std::vector<std::unique_ptr<ReferenceEngine>> engines;
  std::vector<std::vector<std::int32_t>> first_prompts;  // each run's first step's tokens
  const FreshEngine fresh = [&] {
    engines.push_back(std::make_unique<ReferenceEngine>(e.model, w, 3, 16));
    ReferenceEngine* engine = engines.back().get();
    first_prompts.emplace_back();
    return StepFn(
        [engine, &first_prompts](std::span<const SeqDesc> seqs, std::span<const std::int32_t> tokens, const RowWants&) {
          if (first_prompts.back().empty()) first_prompts.back().assign(tokens.begin(), tokens.end());
          const auto logits = engine->step({seqs.begin(), seqs.end()}, {tokens.begin(), tokens.end()});
          return StepOutcome{std::vector<float>(logits.begin(), logits.end()), 1.0, {}, {}};
        });
  };
  const ServedRuns served = serve_repeatedly(s, e, BatchPolicy{2, 16, true}, fresh, &checker);
  EXPECT_EQ(served.failure, "");
  EXPECT_EQ(engines.size(), 4u);  // a warm-up and three timed runs, each on an engine of its own
  EXPECT_EQ(served.samples_ms.size(), 3u);
  EXPECT_EQ(served.checked_runs, 4);
  EXPECT_EQ(served.checked_requests, 4 * 3);  // every slot of every run
  EXPECT_EQ(std::set<std::vector<std::int32_t>>(first_prompts.begin(), first_prompts.end()).size(), 4u);
  for (const ServingResult& run : served.runs) EXPECT_TRUE(run.sampled.empty());  // dropped once checked
}

// judge_served holds every timed run to the node's physical floor: a run that read the model's weights faster than
// the node's memory allows is cheat_detected with the figures; at the limit it is ok, with its bandwidth fraction.
TEST(JudgeServed, ARunBeyondThePhysicalFloorIsCheatDetected) {
  jobs::EngineSpec e;
  e.model = small_model("llama");
  e.workload.requests = 1;
  const Weights w = load_weights(e.model);
  ServedRuns served;
  ServingResult run;
  run.steps = 50;
  run.output_tokens = 50;
  run.tokens_fed = 50;
  const double bandwidth = 1e10;
  run.total_ms = least_bytes_read(e.model, run, WeightPrecision::fp32) / bandwidth * 1e3;
  served.runs = {run, run};
  served.samples_ms = {run.total_ms / 50, run.total_ms / 50};
  const VerdictContext at_limit{1.0, 1e18, "", bandwidth};
  const TimeResult ok = judge_served(served, e, w, at_limit);
  EXPECT_EQ(ok.status, jobs::Status::ok) << ok.evidence;
  const auto fraction = std::find_if(ok.metrics.begin(), ok.metrics.end(),
                                     [](const jobs::Metric& m) { return m.name == "memory_bandwidth_fraction"; });
  ASSERT_NE(fraction, ok.metrics.end());
  EXPECT_NEAR(fraction->value, 1.0, 1e-9);
  served.runs[1].total_ms /= 2 * kFloorMargin;
  const TimeResult beyond = judge_served(served, e, w, at_limit);
  EXPECT_EQ(beyond.status, jobs::Status::cheat_detected);
  EXPECT_NE(beyond.evidence.find("timed run 2"), std::string::npos) << beyond.evidence;
}

}  // namespace
}  // namespace kforge::kernels::engine
