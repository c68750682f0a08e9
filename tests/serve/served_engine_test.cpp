// kforge serve's batcher on a real engine: the host template's engine compiled by the system compiler and run in
// its confined candidate process, as kforge-serve runs it. An engine process that dies mid-step fails the requests
// in that step, and a fresh process serves the next request with the reference's tokens.
#include <gtest/gtest.h>

#include <thread>

#include "engine/engine_call.hpp"
#include "engine/engine_test_support.hpp"
#include "kforge/engine/engine_tolerance.hpp"
#include "kforge/engine/reference_engine.hpp"
#include "kforge/serve/batcher.hpp"
#include "sandbox/cxx_compile.hpp"

namespace kforge::serve {
namespace {

using namespace kernels::engine;

// The honest engine, but its process dies (SIGILL) on a step whose tokens hold 250, 251, 252 in a row: a prompt
// no verification trace sends by chance, and one a client can.
constexpr const char* kCrashOnTrigger = R"(
  if (args[0] == 1) {
    const int32_t* t = static_cast<const int32_t*>(buffers[1]);
    for (int64_t i = 0; i + 2 < args[2]; ++i)
      if (t[i] == 250 && t[i + 1] == 251 && t[i + 2] == 252) __builtin_trap();
  }
  kforge_honest_engine(args, buffers);)";

std::vector<std::int32_t> greedy_alone(const jobs::ModelSpec& model, const Weights& weights,
                                       const std::vector<std::int32_t>& prompt, int n) {
  ReferenceEngine ref(model, weights, 1, 64);
  std::vector<std::int32_t> out;
  std::vector<double> logits = ref.step({{0, 0, static_cast<std::int64_t>(prompt.size())}}, prompt);
  while (static_cast<int>(out.size()) < n) {
    const std::vector<float> row(logits.begin(), logits.end());
    out.push_back(static_cast<std::int32_t>(argmax(std::span<const float>(row))));
    logits = ref.step({{0, static_cast<std::int64_t>(prompt.size() + out.size()) - 1, 1}}, {out.back()});
  }
  return out;
}

TEST(ServedEngine, ACrashingEngineProcessFailsItsRequestsAndAFreshOneServesTheNext) {
  testing::ScratchDir scratch;
  const jobs::ModelSpec model = testing::tiny_model("llama");
  Weights weights = random_weights(model);
  const jobs::Genome genome = testing::engine_genome();
  const jobs::Candidate candidate = testing::engine_candidate(genome);
  const jobs::EvalSettings settings = testing::tiny_engine_settings("llama");
  const kernels::EvalContext ctx = testing::context(settings, scratch.sub("compile"));
  const auto compiled = kernels::host::compile_shared_object(testing::wrapped_engine("", kCrashOnTrigger), candidate,
                                                             ctx, "served_engine_test");
  ASSERT_TRUE(compiled.ok) << compiled.log;
  const BatchPolicy policy = batch_policy_from_genome(genome);
  const EngineSizes sizes{2, 64, policy.max_batch, most_step_tokens(policy)};
  int started = 0;
  std::unique_ptr<kernels::host::CandidateProcess> process;
  const auto fresh = [&]() -> StepFn {
    process.reset();
    process = engine_process_in(compiled.artefact, scratch.sub("engine-" + std::to_string(started++)));
    init_engine(*process, model, weights, sizes);
    return step_through(*process, model.vocab);
  };
  Metrics metrics;
  Batcher batcher(fresh, policy, model.vocab, {2, 8, 64}, metrics);
  std::mutex m;
  std::condition_variable cv;
  std::map<int, std::vector<JobEvent>> heard;
  const auto job = [&](int id, std::vector<std::int32_t> prompt) {
    auto j = std::make_shared<Job>();
    j->prompt = std::move(prompt);
    j->max_tokens = 4;
    j->sampling.temperature = 0.0;
    j->deliver = [&, id](std::vector<JobEvent> events) {
      const std::lock_guard lock(m);
      heard[id].insert(heard[id].end(), events.begin(), events.end());
      cv.notify_all();
    };
    return j;
  };
  const auto finished = [&](int id) { return !heard[id].empty() && !heard[id].back().finish.empty(); };
  std::thread engine([&] { batcher.run(); });
  batcher.submit(job(0, {7, 250, 251, 252, 9}));
  {
    std::unique_lock lock(m);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return finished(0); }));
  }
  batcher.submit(job(1, {1, 2, 3}));
  {
    std::unique_lock lock(m);
    ASSERT_TRUE(cv.wait_for(lock, std::chrono::seconds(60), [&] { return finished(1); }));
  }
  batcher.stop();
  engine.join();
  EXPECT_EQ(heard[0].back().finish, "abort");
  EXPECT_NE(heard[0].back().error.find("the engine failed"), std::string::npos) << heard[0].back().error;
  std::vector<std::int32_t> tokens;
  for (const JobEvent& e : heard[1]) tokens.push_back(e.token);
  EXPECT_EQ(heard[1].back().finish, "length");
  EXPECT_EQ(tokens, greedy_alone(model, weights, {1, 2, 3}, 4));
  EXPECT_EQ(started, 2);
  EXPECT_EQ(metrics.engine_restarts.load(), 1u);
  EXPECT_TRUE(batcher.healthy());
}

}  // namespace
}  // namespace kforge::serve
