// The serving trace (deterministic from the workload's seed) and the harness's serving loop on a fake step
// function whose step times are known, so TTFT, inter-token latency, tokens/s and the operator shares can be
// computed by hand (docs/engines.md, "Serving").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <set>
#include <stdexcept>

#include "kforge/engine/serving_loop.hpp"
#include "kforge/engine/workload_trace.hpp"

namespace kforge::kernels::engine {
namespace {

jobs::WorkloadSpec small_workload(std::uint64_t seed) {
  jobs::WorkloadSpec w;
  w.seed = seed;
  w.requests = 50;
  w.prompt_min = 3;
  w.prompt_max = 9;
  w.output_min = 1;
  w.output_max = 4;
  w.concurrency = 3;
  return w;
}

bool same_trace(const WorkloadTrace& a, const WorkloadTrace& b) {
  if (a.requests.size() != b.requests.size() || a.concurrency != b.concurrency) return false;
  for (std::size_t n = 0; n < a.requests.size(); ++n) {
    const auto &x = a.requests[n], &y = b.requests[n];
    if (x.prompt != y.prompt || x.output_tokens != y.output_tokens || x.arrival_ms != y.arrival_ms) return false;
  }
  return true;
}

TEST(WorkloadTrace, IsDeterministicFromTheSeedAndStaysInItsRanges) {
  const WorkloadTrace a = make_trace(small_workload(7), 256);
  EXPECT_TRUE(same_trace(a, make_trace(small_workload(7), 256)));
  EXPECT_FALSE(same_trace(a, make_trace(small_workload(8), 256)));
  ASSERT_EQ(a.requests.size(), 50u);
  EXPECT_FALSE(a.open_loop);
  EXPECT_EQ(a.concurrency, 3);
  std::set<std::size_t> prompt_lengths;
  std::set<std::int64_t> output_lengths;
  for (const auto& r : a.requests) {
    EXPECT_GE(r.prompt.size(), 3u);
    EXPECT_LE(r.prompt.size(), 9u);
    EXPECT_GE(r.output_tokens, 1);
    EXPECT_LE(r.output_tokens, 4);
    EXPECT_EQ(r.arrival_ms, 0.0);  // closed loop: all there at the start
    for (const auto t : r.prompt) {
      EXPECT_GE(t, 0);
      EXPECT_LT(t, 256);
    }
    prompt_lengths.insert(r.prompt.size());
    output_lengths.insert(r.output_tokens);
  }
  EXPECT_EQ(prompt_lengths.size(), 7u);  // 50 draws reach every length of [3, 9] (seed 7)
  EXPECT_EQ(output_lengths.size(), 4u);
  std::int64_t longest = 0;
  for (const auto& r : a.requests)
    longest = std::max<std::int64_t>(longest, static_cast<std::int64_t>(r.prompt.size()) + r.output_tokens);
  EXPECT_EQ(a.max_context(), longest);
}

TEST(WorkloadTrace, OpenLoopArrivalsArePoissonAtTheRate) {
  jobs::WorkloadSpec w = small_workload(3);
  w.requests = 4000;
  w.arrival_rate = 50.0;  // per second: mean gap 20 ms
  const WorkloadTrace t = make_trace(w, 100);
  EXPECT_TRUE(t.open_loop);
  double previous = 0.0;
  for (const auto& r : t.requests) {
    EXPECT_GT(r.arrival_ms, previous);
    previous = r.arrival_ms;
  }
  const double mean_gap = previous / static_cast<double>(w.requests);
  EXPECT_NEAR(mean_gap, 20.0, 1.0);  // 4000 exponential gaps: standard error 0.32 ms
}

TEST(WorkloadTrace, RefusesWorkloadsNoTraceComesFrom) {
  for (auto broken :
       {+[](jobs::WorkloadSpec& w) { w.requests = 0; }, +[](jobs::WorkloadSpec& w) { w.prompt_min = 0; },
        +[](jobs::WorkloadSpec& w) { w.output_max = 0; }, +[](jobs::WorkloadSpec& w) { w.concurrency = 0; },
        +[](jobs::WorkloadSpec& w) { w.arrival_rate = -1; }}) {
    jobs::WorkloadSpec w = small_workload(1);
    broken(w);
    EXPECT_THROW(make_trace(w, 16), std::invalid_argument);
  }
}

constexpr std::int64_t kVocab = 8;

// A fake engine: every step takes 2 ms per token fed, spends 1 s in attention and 3 s in mlp (self-reported),
// and its last-token logits put the maximum at (start_position + token_count) % vocab.
struct FakeEngine {
  std::vector<std::vector<StepSequence>> steps;
  StepFn fn() {
    return [this](std::span<const StepSequence> seqs, std::span<const std::int32_t> tokens, const RowWants&) {
      steps.emplace_back(seqs.begin(), seqs.end());
      StepOutcome out;
      out.logits.assign(seqs.size() * kVocab, 0.0f);
      for (std::size_t s = 0; s < seqs.size(); ++s)
        out.logits[s * kVocab + static_cast<std::size_t>((seqs[s].start_position + seqs[s].token_count) % kVocab)] =
            1.0f;
      out.ms = 2.0 * static_cast<double>(tokens.size());
      out.op_seconds[3] = 1.0;  // attention
      out.op_seconds[6] = 3.0;  // mlp
      return out;
    };
  }
};

TraceRequest request(std::size_t prompt, std::int64_t outputs, double arrival_ms = 0.0) {
  return TraceRequest{std::vector<std::int32_t>(prompt, 1), outputs, arrival_ms};
}

TEST(ServingLoop, ClosedLoopFiguresMatchTheHandComputedSchedule) {
  WorkloadTrace trace;
  trace.requests = {request(3, 3), request(20, 2)};
  trace.concurrency = 2;
  FakeEngine engine;
  const ServingResult r = serve(trace, BatchPolicy{2, 16, true}, kVocab, engine.fn());
  // Step 1: A prefills 3, B its first chunk of 16: 19 tokens, 38 ms. A's first token at 38 (TTFT 38).
  // Step 2: decode first: A decodes (1), B's last chunk (4): 10 ms, clock 48; A's ITL 10, B's TTFT 48.
  // Step 3: A and B decode: 4 ms, clock 52; ITL 4 each; both done.
  ASSERT_EQ(engine.steps.size(), 3u);
  EXPECT_EQ(engine.steps[0][1].token_count, 16);
  EXPECT_EQ(engine.steps[1][0].start_position, 3);  // A's first decode: its first output token at position 3
  EXPECT_EQ(engine.steps[1][1].start_position, 16);
  EXPECT_EQ(engine.steps[2][0].start_position, 4);
  EXPECT_EQ(engine.steps[2][1].start_position, 20);
  EXPECT_EQ(r.steps, 3);
  EXPECT_DOUBLE_EQ(r.total_ms, 52.0);
  EXPECT_EQ(r.output_tokens, 5);
  EXPECT_DOUBLE_EQ(r.output_tokens_per_s, 5.0 / 0.052);
  EXPECT_DOUBLE_EQ(r.ttft_p50_ms, 38.0);  // nearest rank of {38, 48}
  EXPECT_DOUBLE_EQ(r.ttft_p99_ms, 48.0);
  EXPECT_DOUBLE_EQ(r.itl_p50_ms, 4.0);  // {4, 4, 10}
  EXPECT_DOUBLE_EQ(r.itl_p99_ms, 10.0);
  // Greedy: A's tokens are the argmax of logits ending at positions 3, 4, 5.
  EXPECT_EQ(r.outputs[0], (std::vector<std::int32_t>{3, 4, 5}));
  EXPECT_EQ(r.outputs[1], (std::vector<std::int32_t>{20 % kVocab, 21 % kVocab}));
  EXPECT_DOUBLE_EQ(r.op_share[3], 0.25);
  EXPECT_DOUBLE_EQ(r.op_share[6], 0.75);
  EXPECT_DOUBLE_EQ(std::accumulate(r.op_share.begin(), r.op_share.end(), 0.0), 1.0);
}

TEST(ServingLoop, PrefillFirstAndOneSequencePerStep) {
  WorkloadTrace trace;
  trace.requests = {request(2, 3), request(2, 1)};
  trace.concurrency = 2;
  FakeEngine engine;
  const ServingResult r = serve(trace, BatchPolicy{1, 16, false}, kVocab, engine.fn());
  // Prefill A (4 ms), prefill B (4 ms, B done: TTFT 8), then A's two decodes (2 ms each).
  ASSERT_EQ(engine.steps.size(), 4u);
  EXPECT_EQ(engine.steps[0][0].slot, 0);
  EXPECT_EQ(engine.steps[1][0].slot, 1);
  EXPECT_EQ(engine.steps[1][0].token_count, 2);
  EXPECT_DOUBLE_EQ(r.total_ms, 12.0);
  EXPECT_DOUBLE_EQ(r.ttft_p99_ms, 8.0);
  EXPECT_DOUBLE_EQ(r.itl_p99_ms, 6.0);  // A: first token at 4, second at 10
}

TEST(ServingLoop, ASlotIsReusedByTheNextRequestFromPositionZero) {
  WorkloadTrace trace;
  trace.requests = {request(4, 2), request(3, 1)};
  trace.concurrency = 1;
  FakeEngine engine;
  const ServingResult r = serve(trace, BatchPolicy{4, 16, true}, kVocab, engine.fn());
  ASSERT_EQ(engine.steps.size(), 3u);  // A prefill, A decode, B prefill
  EXPECT_EQ(engine.steps[2][0].slot, 0);
  EXPECT_EQ(engine.steps[2][0].start_position, 0);
  // Closed loop: B's TTFT counts from its admission (clock 10), not from the start: 16 - 10.
  EXPECT_DOUBLE_EQ(r.ttft_p50_ms, 6.0);
  EXPECT_DOUBLE_EQ(r.ttft_p99_ms, 8.0);
  EXPECT_DOUBLE_EQ(r.total_ms, 16.0);
}

TEST(ServingLoop, OpenLoopIdleGapsJumpToTheNextArrival) {
  WorkloadTrace trace;
  trace.open_loop = true;
  trace.concurrency = 0;
  trace.requests = {request(2, 1, 100.0), request(3, 2, 300.0)};
  FakeEngine engine;
  const ServingResult r = serve(trace, BatchPolicy{2, 16, true}, kVocab, engine.fn());
  // A: 100 -> 104. B: 300 -> 306 (first token), 308 (second).
  EXPECT_DOUBLE_EQ(r.total_ms, 308.0);
  EXPECT_DOUBLE_EQ(r.ttft_p50_ms, 4.0);
  EXPECT_DOUBLE_EQ(r.ttft_p99_ms, 6.0);
  EXPECT_DOUBLE_EQ(r.itl_p99_ms, 2.0);
  EXPECT_DOUBLE_EQ(r.output_tokens_per_s, 3.0 / 0.308);
}

TEST(ServingLoop, LogitsThatAreNotFiniteStopServingWithAReason) {
  WorkloadTrace trace;
  trace.requests = {request(2, 2)};
  const StepFn nan_engine = [](std::span<const StepSequence> seqs, std::span<const std::int32_t>, const RowWants&) {
    StepOutcome out;
    out.logits.assign(seqs.size() * kVocab, std::nanf(""));
    out.ms = 1.0;
    return out;
  };
  const ServingResult r = serve(trace, BatchPolicy{1, 16, true}, kVocab, nan_engine);
  EXPECT_NE(r.failure.find("not finite"), std::string::npos) << r.failure;
}

// pick_rows, the harness's reduction of a row (and the specification of the cuda engine's kf_pick): the first of the
// largest values, -1 for a row with a value that is not finite, the values at the columns and then at the token.
TEST(ServingLoop, PickedRowsKeepTheFirstLargestAndTheAskedColumns) {
  const float nan = std::nanf("");
  const std::vector<float> rows = {1,    5, 5,  -2,  0,  5,  3,  4,   // a tie: the lower index
                                   -0.f, 0, -1, -1,  -1, -1, -1, -1,  // -0 ties +0
                                   1,    2, 3,  nan, 5,  6,  7,  8};  // a NaN away from the top
  const std::vector<std::uint32_t> columns = {0, 3, 7};
  const PickedRows p = pick_rows(rows, kVocab, columns);
  EXPECT_EQ(p.greedy, (std::vector<std::int32_t>{1, 0, -1}));
  ASSERT_EQ(p.kept.size(), 3u * 4u);
  EXPECT_EQ(std::vector<float>(p.kept.begin(), p.kept.begin() + 8),
            (std::vector<float>{1, -2, 4, 5, -0.f, -1, -1, -0.f}));
  EXPECT_EQ(pick_rows(rows, kVocab, {}).kept.size(), 3u);  // the top value alone
}

// An engine that reduces its rows where it computes them (the cuda engine) answers with picked rows; serve()
// decodes and samples from them as from whole rows, and refuses picked rows that are missing, of the wrong size, or
// that say a value was not finite.
TEST(ServingLoop, AnEngineMayAnswerWithPickedRows) {
  WorkloadTrace trace;
  trace.requests = {request(3, 4), request(5, 2)};
  trace.concurrency = 2;
  const LogitSampler sampler{{1, 6}};
  FakeEngine whole;
  const ServingResult want = serve(trace, BatchPolicy{2, 16, true}, kVocab, whole.fn(), &sampler);
  FakeEngine reduced;
  std::vector<bool> asked_whole;
  const StepFn picking = [&](std::span<const StepSequence> seqs, std::span<const std::int32_t> tokens,
                             const RowWants& wants) {
    asked_whole.push_back(wants.whole);
    StepOutcome out = reduced.fn()(seqs, tokens, wants);
    out.picked = pick_rows(out.logits, kVocab, wants.columns);
    out.logits.clear();
    return out;
  };
  const ServingResult got = serve(trace, BatchPolicy{2, 16, true}, kVocab, picking, &sampler);
  ASSERT_EQ(got.failure, "");
  EXPECT_EQ(got.outputs, want.outputs);
  EXPECT_EQ(got.sampled, want.sampled);
  EXPECT_DOUBLE_EQ(got.total_ms, want.total_ms);
  EXPECT_EQ(std::count(asked_whole.begin(), asked_whole.end(), true), 0);

  const auto served_with = [&](const std::function<void(PickedRows&)>& spoil) {
    const StepFn spoiled = [&](std::span<const StepSequence> seqs, std::span<const std::int32_t> tokens,
                               const RowWants& wants) {
      StepOutcome out = picking(seqs, tokens, wants);
      spoil(out.picked);
      return out;
    };
    return serve(trace, BatchPolicy{2, 16, true}, kVocab, spoiled, &sampler).failure;
  };
  EXPECT_NE(served_with([](PickedRows& p) { p.greedy[0] = -1; }).find("a logit that is not finite"), std::string::npos);
  EXPECT_NE(served_with([](PickedRows& p) { p.kept.back() = std::nanf(""); }).find("not finite"), std::string::npos);
  EXPECT_NE(served_with([](PickedRows& p) { p.greedy[0] = kVocab; }).find("outside the vocabulary"), std::string::npos);
  EXPECT_NE(served_with([](PickedRows& p) { p.kept.pop_back(); }).find("wrong size"), std::string::npos);
  EXPECT_NE(served_with([](PickedRows& p) { p = {}; }).find("no logits"), std::string::npos);
}

TEST(ServingLoop, BatchPolicyFromTheGenome) {
  jobs::Genome g;
  EXPECT_EQ(batch_policy_from_genome(g).max_batch, 1);
  g.params = {
      {"max_batch", std::int64_t{8}}, {"prefill_chunk", std::int64_t{64}}, {"schedule", std::string("prefill_first")}};
  const BatchPolicy p = batch_policy_from_genome(g);
  EXPECT_EQ(p.max_batch, 8);
  EXPECT_EQ(p.prefill_chunk, 64);
  EXPECT_FALSE(p.decode_first);
  g.params["max_batch"] = std::int64_t{3};
  EXPECT_THROW(batch_policy_from_genome(g), std::invalid_argument);
}

}  // namespace
}  // namespace kforge::kernels::engine
