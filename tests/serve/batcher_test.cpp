// kforge serve's continuous batching (serve/include/kforge/serve/batcher.hpp): requests that share the engine get
// exactly what each would get alone (the double reference engine as the engine), steps keep to the genome's
// policy, and stop tokens, cancelled clients, a full queue and a failing engine each end as documented.
#include "kforge/serve/batcher.hpp"

#include <gtest/gtest.h>

#include <condition_variable>
#include <map>
#include <stdexcept>
#include <thread>

#include "../kernels/engine/engine_test_support.hpp"
#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/reference_engine.hpp"

namespace kforge::serve {
namespace {

using kernels::engine::BatchPolicy;
using kernels::engine::StepFn;
using kernels::engine::StepOutcome;
using kernels::engine::StepSequence;

// What the jobs heard, gathered from the batcher's thread.
struct Heard {
  std::mutex m;
  std::condition_variable cv;
  std::map<int, std::vector<std::int32_t>> tokens;
  std::map<int, std::string> finish, error;

  std::shared_ptr<Job> job(int id, std::vector<std::int32_t> prompt, std::int64_t max_tokens) {
    auto j = std::make_shared<Job>();
    j->prompt = std::move(prompt);
    j->max_tokens = max_tokens;
    j->sampling.temperature = 0.0;
    j->deliver = [this, id](std::vector<JobEvent> events) {
      const std::lock_guard lock(m);
      for (const JobEvent& e : events) {
        if (e.token >= 0) tokens[id].push_back(e.token);
        if (!e.finish.empty()) finish[id] = e.finish, error[id] = e.error;
      }
      cv.notify_all();
    };
    return j;
  }
  void wait_finished(std::size_t n) {
    std::unique_lock lock(m);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return finish.size() >= n; }));
  }
};

// The batcher's run() on a thread of its own, stopped and joined at the end of the test.
struct Running {
  Batcher& b;
  std::thread t;
  explicit Running(Batcher& batcher) : b(batcher), t([this] { b.run(); }) {}
  ~Running() {
    b.stop();
    t.join();
  }
};

StepFn reference_step(kernels::engine::ReferenceEngine& ref, std::vector<std::vector<StepSequence>>* steps = nullptr) {
  return [&ref, steps](std::span<const StepSequence> seqs, std::span<const std::int32_t> tokens,
                       const kernels::engine::RowWants&) {
    if (steps) steps->emplace_back(seqs.begin(), seqs.end());
    const auto logits = ref.step({seqs.begin(), seqs.end()}, {tokens.begin(), tokens.end()});
    return StepOutcome{std::vector<float>(logits.begin(), logits.end()), 0.1, {}, {}};
  };
}

TEST(Batcher, RequestsSharingTheEngineGetWhatEachWouldGetAlone) {
  const jobs::ModelSpec model = kernels::engine::testing::tiny_model("llama");
  const auto weights = kernels::engine::random_weights(model);
  std::vector<std::vector<std::int32_t>> prompts;
  for (int r = 0; r < 6; ++r) {
    std::vector<std::int32_t> p;
    for (int t = 0; t < 5 + 7 * r; ++t) p.push_back((r * 31 + t * 17) % 256);
    prompts.push_back(p);
  }
  // alone: each request in a fresh slot of its own, greedy on the same float logits
  std::vector<std::vector<std::int32_t>> alone;
  for (int r = 0; r < 6; ++r) {
    kernels::engine::ReferenceEngine ref(model, weights, 1, 128);
    std::vector<std::int32_t> out;
    std::vector<double> logits = ref.step({{0, 0, static_cast<std::int64_t>(prompts[r].size())}}, prompts[r]);
    while (static_cast<int>(out.size()) < 3 + r) {
      const std::vector<float> row(logits.begin(), logits.end());
      out.push_back(static_cast<std::int32_t>(kernels::engine::argmax(std::span<const float>(row))));
      logits = ref.step({{0, static_cast<std::int64_t>(prompts[r].size() + out.size()) - 1, 1}}, {out.back()});
    }
    alone.push_back(out);
  }
  kernels::engine::ReferenceEngine shared(model, weights, 3, 128);
  std::vector<std::vector<StepSequence>> steps;
  Metrics metrics;
  const BatchPolicy policy{2, 16, true};
  Batcher batcher([&] { return reference_step(shared, &steps); }, policy, model.vocab, {3, 16, 128}, metrics);
  Heard heard;
  for (int r = 0; r < 6; ++r) ASSERT_EQ(batcher.submit(heard.job(r, prompts[r], 3 + r)), Batcher::Admission::accepted);
  {
    Running running(batcher);
    heard.wait_finished(6);
  }
  for (int r = 0; r < 6; ++r) {
    EXPECT_EQ(heard.tokens[r], alone[r]) << "request " << r;
    EXPECT_EQ(heard.finish[r], "length");
  }
  bool shared_a_step = false;
  for (const auto& s : steps) {
    EXPECT_LE(s.size(), 2u);
    for (const StepSequence& q : s) EXPECT_LE(q.token_count, 16);
    shared_a_step = shared_a_step || s.size() == 2;
  }
  EXPECT_TRUE(shared_a_step) << "no step held two requests: nothing was batched";
  EXPECT_EQ(metrics.generation_tokens.load(), 3u + 4 + 5 + 6 + 7 + 8);
  EXPECT_EQ(metrics.finished_length.load(), 6u);
}

// An engine whose every row puts its maximum at `token`, and that throws or answers NaN on the calls asked.
struct ScriptedEngine {
  std::int64_t vocab = 16;
  std::int32_t token = 7;
  int calls = 0, throw_at = -1, nan_at = -1;
  StepFn step() {
    return [this](std::span<const StepSequence> seqs, std::span<const std::int32_t>, const kernels::engine::RowWants&) {
      ++calls;
      if (calls == throw_at) throw std::runtime_error("the candidate process died");
      std::vector<float> logits(seqs.size() * static_cast<std::size_t>(vocab), 0.0f);
      for (std::size_t s = 0; s < seqs.size(); ++s) logits[s * static_cast<std::size_t>(vocab) + token] = 5.0f;
      if (calls == nan_at) logits[0] = NAN;
      return StepOutcome{logits, 0.1, {}, {}};
    };
  }
};

TEST(Batcher, AStopTokenEndsItsJobWithStop) {
  ScriptedEngine engine;
  Metrics metrics;
  Batcher batcher([&] { return engine.step(); }, {1, 16, true}, engine.vocab, {1, 4, 64}, metrics);
  Heard heard;
  auto job = heard.job(0, {1, 2, 3}, 10);
  job->stop_tokens = {7};
  batcher.submit(job);
  Running running(batcher);
  heard.wait_finished(1);
  EXPECT_EQ(heard.tokens[0], std::vector<std::int32_t>{7});
  EXPECT_EQ(heard.finish[0], "stop");
}

TEST(Batcher, ACancelledJobGivesItsSlotToTheNextOne) {
  ScriptedEngine engine;
  Metrics metrics;
  Batcher batcher([&] { return engine.step(); }, {1, 16, true}, engine.vocab, {1, 4, 100000}, metrics);
  Heard heard;
  auto endless = heard.job(0, {1}, 90000);
  batcher.submit(endless);
  batcher.submit(heard.job(1, {2}, 3));
  Running running(batcher);
  {
    std::unique_lock lock(heard.m);
    ASSERT_TRUE(heard.cv.wait_for(lock, std::chrono::seconds(30), [&] { return heard.tokens[0].size() >= 5; }));
  }
  endless->cancelled = true;
  heard.wait_finished(1);
  EXPECT_EQ(heard.finish[1], "length");
  EXPECT_EQ(heard.tokens[1].size(), 3u);
  EXPECT_FALSE(heard.finish.contains(0));  // a job whose client went away is not told anything more
  EXPECT_EQ(metrics.finished_abort.load(), 1u);
}

TEST(Batcher, BeyondItsQueueLimitAJobIsRefused) {
  ScriptedEngine engine;
  Metrics metrics;
  Batcher batcher([&] { return engine.step(); }, {1, 16, true}, engine.vocab, {1, 2, 64}, metrics);
  Heard heard;
  EXPECT_EQ(batcher.submit(heard.job(0, {1}, 2)), Batcher::Admission::accepted);
  EXPECT_EQ(batcher.submit(heard.job(1, {1}, 2)), Batcher::Admission::accepted);
  EXPECT_EQ(batcher.submit(heard.job(2, {1}, 2)), Batcher::Admission::queue_full);
  batcher.stop();
  batcher.run();  // stopped before it served: every queued job hears why
  EXPECT_EQ(heard.finish[0], "abort");
  EXPECT_EQ(heard.error[1], "the server is stopping");
  EXPECT_EQ(batcher.submit(heard.job(3, {1}, 2)), Batcher::Admission::stopped);
}

TEST(Batcher, AFailingEngineAbortsItsJobsAndAFreshOneServesTheNext) {
  for (const bool nan : {false, true}) {
    ScriptedEngine engine;
    (nan ? engine.nan_at : engine.throw_at) = 3;
    int started = 0;
    Metrics metrics;
    Batcher batcher(
        [&] {
          ++started;
          return engine.step();
        },
        {2, 16, true}, engine.vocab, {2, 4, 64}, metrics);
    Heard heard;
    batcher.submit(heard.job(0, {1}, 10));
    batcher.submit(heard.job(1, {1, 2}, 10));
    Running running(batcher);
    heard.wait_finished(2);
    EXPECT_EQ(heard.finish[0], "abort");
    EXPECT_EQ(heard.finish[1], "abort");
    EXPECT_NE(heard.error[0].find(nan ? "not finite" : "the candidate process died"), std::string::npos)
        << heard.error[0];
    batcher.submit(heard.job(2, {3}, 4));
    heard.wait_finished(3);
    EXPECT_EQ(heard.finish[2], "length");
    EXPECT_EQ(heard.tokens[2].size(), 4u);
    EXPECT_EQ(started, 2);
    EXPECT_TRUE(batcher.healthy());
    EXPECT_EQ(metrics.engine_restarts.load(), 1u);
  }
}

TEST(Batcher, AnEngineThatCannotStartAgainMakesTheServerUnhealthy) {
  ScriptedEngine engine;
  engine.throw_at = 1;
  int started = 0;
  Metrics metrics;
  Batcher batcher(
      [&]() -> StepFn {
        if (++started > 1) throw std::runtime_error("no memory for another process");
        return engine.step();
      },
      {1, 16, true}, engine.vocab, {1, 4, 64}, metrics);
  Heard heard;
  batcher.submit(heard.job(0, {1}, 3));
  batcher.run();  // returns by itself: the engine is gone
  EXPECT_EQ(heard.finish[0], "abort");
  EXPECT_FALSE(batcher.healthy());
  EXPECT_EQ(batcher.submit(heard.job(1, {1}, 3)), Batcher::Admission::stopped);
}

}  // namespace
}  // namespace kforge::serve
