// The host engine backend end to end on a tiny llama and a tiny kimi-linear: render the template, compile, load,
// verify against the double reference, serve the workload (metrics present and positive), time the reference
// baseline, and an impossible SLO recorded as slo_missed, never a crash.
#include <gtest/gtest.h>

#include <map>

#include "engine_test_support.hpp"
#include "kforge/engine/engine_abi.hpp"
#include "kforge/kernels/backend.hpp"

namespace kforge::kernels::engine {
namespace {

using testing::ScratchDir;

std::map<std::string, jobs::Metric> by_name(const std::vector<jobs::Metric>& metrics) {
  std::map<std::string, jobs::Metric> out;
  for (const auto& m : metrics) out[m.name] = m;
  return out;
}

void expect_serves_and_verifies(const std::string& architecture) {
  ScratchDir scratch;
  const auto backend = make_backend("host", "engine");
  EXPECT_EQ(backend->family(), "engine");
  jobs::EvalSettings s = testing::tiny_engine_settings(architecture);
  const EvalContext ctx = testing::context(s, scratch.sub("c"));
  const jobs::Candidate c = testing::engine_candidate(testing::engine_genome());
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  ASSERT_TRUE(compiled.ok) << compiled.log;
  backend->load(compiled);
  const VerifyResult v = backend->verify(ctx);
  ASSERT_EQ(v.status, jobs::Status::ok) << v.evidence << " " << v.failed_case;
  EXPECT_GE(v.max_abs_error, 0.0);
  EXPECT_LT(v.max_rel_error, 2e-3);

  const TimeResult t = backend->time(ctx);
  EXPECT_EQ(t.status, jobs::Status::ok) << t.evidence;
  ASSERT_FALSE(t.samples_ms.empty());
  for (double ms : t.samples_ms) EXPECT_GT(ms, 0.0);
  const auto m = by_name(t.metrics);
  for (const auto& [name, unit] : std::map<std::string, std::string>{{"output_tokens_per_s", "tokens/s"},
                                                                     {"ttft_p50_ms", "ms"},
                                                                     {"ttft_p99_ms", "ms"},
                                                                     {"itl_p50_ms", "ms"},
                                                                     {"itl_p99_ms", "ms"},
                                                                     {"peak_memory_mb", "MiB"}}) {
    ASSERT_EQ(m.count(name), 1u) << name;
    EXPECT_EQ(m.at(name).unit, unit) << name;
    EXPECT_GT(m.at(name).value, 0.0) << name;
  }
  EXPECT_EQ(m.at("requests").value, 4.0);
  EXPECT_GE(m.at("output_tokens").value, 8.0);  // 4 requests of 2..6 tokens
  double shares = 0.0;
  for (const auto op : kOperators) {
    ASSERT_EQ(m.count("op_share." + std::string(op)), 1u) << op;
    shares += m.at("op_share." + std::string(op)).value;
  }
  EXPECT_NEAR(shares, 1.0, 1e-9);  // the template reports where its time goes

  // An SLO no engine meets: recorded, with the figure and the limit, and the metrics are still there.
  s.engine.workload.slo_p99_itl_ms = 1e-6;
  const TimeResult missed = backend->time(ctx);
  EXPECT_EQ(missed.status, jobs::Status::slo_missed);
  EXPECT_NE(missed.evidence.find("slo.p99_itl_ms"), std::string::npos) << missed.evidence;
  EXPECT_FALSE(missed.metrics.empty());
  s.engine.workload.slo_p99_itl_ms = 0.0;

  const auto baselines = backend->time_baselines(ctx);
  ASSERT_EQ(baselines.size(), 1u);
  EXPECT_EQ(baselines[0].name, "reference");
  EXPECT_GT(baselines[0].time_median_ms, 0.0);
}

TEST(HostEngineBackend, TinyLlamaCompilesVerifiesServesAndMissesAnImpossibleSlo) {
  expect_serves_and_verifies("llama");
}

TEST(HostEngineBackend, TinyKimiLinearCompilesVerifiesServesAndMissesAnImpossibleSlo) {
  expect_serves_and_verifies("kimi-linear");
}

TEST(HostEngineBackend, ABadBatchingValueIsTheCandidatesRenderError) {
  const auto backend = make_backend("host", "engine");
  jobs::Genome g = testing::engine_genome();
  g.params["max_batch"] = std::int64_t{3};
  EXPECT_THROW(backend->render(testing::engine_candidate(g)), std::invalid_argument);
}

}  // namespace
}  // namespace kforge::kernels::engine
