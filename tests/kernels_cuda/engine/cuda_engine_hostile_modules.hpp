#pragma once
// Hostile cuda engine modules, each the template with one edit, and the verdict each must get. The same list runs
// on the CPU emulation (cuda_engine_cheats_test.cpp) and on a GPU (../gpu/cuda_engine_gpu_test.cpp). Every one
// compiles with NVRTC (the compile stage cannot tell); verification (the script or the serving envelope) or the
// serving verdict catches it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuda_engine_source.hpp"
#include "cuda_engine_test_support.hpp"

namespace kforge::kernels::cuda::engine::testing {

struct HostileModule {
  std::string name;
  std::string architecture;
  std::vector<std::pair<const char*, std::int64_t>> genome;  // changes to genome_with({})
  std::string from, to;                                      // the edit of the rendered template
  jobs::Status verified = jobs::Status::ok;                  // verify()'s verdict
  jobs::Status timed = jobs::Status::ok;                     // time()'s, when verify() says ok
  std::string evidence;                                      // a phrase the verdict's evidence holds
  int prompt_tokens = 0;                                     // > 0: every prompt of the workload this long
};

inline HostileModule hostile(std::string name, std::string architecture, std::string from, std::string to,
                             jobs::Status verified) {
  HostileModule m;
  m.name = std::move(name);
  m.architecture = std::move(architecture);
  m.from = std::move(from);
  m.to = std::move(to);
  m.verified = verified;
  return m;
}

inline std::vector<HostileModule> hostile_modules() {
  std::vector<HostileModule> all;
  all.push_back(
      hostile("ProjectionsOnBf16RoundedWeights", "llama",
              "Ws[kk][nn] = (n < N && k < k_end) ? weight(W[(long long)n * K + k]) : 0.f;",
              "{ union { float f; unsigned u; } w; w.f = (n < N && k < k_end) ? weight(W[(long long)n * K + k]) : 0.f;"
              " w.u &= 0xffff0000u; Ws[kk][nn] = w.f; }",
              jobs::Status::wrong_result));
  all.push_back(hostile("AKdaStateNotResetForANewRequest", "kimi-linear", "fresh = seq_start[sq] == 0;",
                        "fresh = seq_start[sq] < 0;", jobs::Status::wrong_result));
  // A sliding window of 48: right for every sequence shorter than that, wrong past it (the trace reaches 73).
  all.push_back(
      hostile("AttentionOverOnlyTheLast48Positions", "llama", "for (int s0 = 0; s0 <= last; s0 += ATTN_TILE) {",
              "for (int s0 = last >= 48 ? last - 47 : 0; s0 <= last; s0 += ATTN_TILE) {", jobs::Status::wrong_result));
  // Every projection but the head is narrower than 200 outputs when gate and up are not fused.
  HostileModule unwritten =
      hostile("LogitsNeverWrittenStayPoisoned", "llama", "const int tid = threadIdx.x, tn = tid % (BN / TN)",
              "if (N > 200) return;\n  const int tid = threadIdx.x, tn = tid % (BN / TN)", jobs::Status::wrong_result);
  unwritten.genome = {{"fuse_gate_up", 0}};
  unwritten.evidence = "nan";
  all.push_back(unwritten);
  // Right on the verification script (at most 9 tokens a step), wrong once a step holds more: prompts of 20 tokens,
  // two at a time, put every request's prefill in such a step; its norms then leave their output as it was. The
  // serving envelope (the workload's longest prompts, as many in a step as the policy allows) catches it before
  // any timing; an earlier kforge caught it only by a spot check while timed.
  HostileModule loaded = hostile(
      "RightOnTheScriptWrongUnderTheServingLoad", "llama", "const float* row = x + (long long)blockIdx.x * hidden;",
      "if (gridDim.x > 16) return;\n  const float* row = x + (long long)blockIdx.x * hidden;",
      jobs::Status::wrong_result);
  loaded.genome = {{"prefill_chunk", 64}};
  loaded.evidence = "serving envelope";
  loaded.prompt_tokens = 20;
  all.push_back(loaded);
  return all;
}

// The rendered module with `m`'s edit (the test fails when the template no longer holds the text it edits).
inline std::string hostile_source(const HostileModule& m, const jobs::Genome& g) {
  std::string source = render_cuda_engine_source(cuda_engine_params(g));
  const auto at = source.find(m.from);
  EXPECT_NE(at, std::string::npos) << m.name << ": the template no longer contains: " << m.from;
  if (at != std::string::npos) source.replace(at, m.from.size(), m.to);
  return source;
}

inline jobs::Genome hostile_genome(const HostileModule& m) {
  jobs::Genome g = genome_with({});
  for (const auto& [name, value] : m.genome) g.params[name] = value;
  return g;
}

inline jobs::EvalSettings hostile_settings(const HostileModule& m) {
  jobs::EvalSettings s = settings(m.architecture);
  if (m.prompt_tokens > 0) s.engine.workload.prompt_min = s.engine.workload.prompt_max = m.prompt_tokens;
  return s;
}

// Compiles, loads and judges `m` on `backend` for `target`; checks the verdicts and the evidence.
inline void expect_caught(CudaEngineBackend& backend, const HostileModule& m, const ScratchDir& scratch,
                          const std::string& target) {
  SCOPED_TRACE(m.name);
  const jobs::EvalSettings s = hostile_settings(m);
  const EvalContext ctx = context(s, scratch, target);
  const jobs::Genome g = hostile_genome(m);
  const std::string source = hostile_source(m, g);
  const jobs::Candidate c = candidate(g, source);
  const CompileResult compiled = backend.compile(source, c, ctx);
  ASSERT_TRUE(compiled.ok) << "a hostile module must pass the compile stage\n" << compiled.log;
  backend.load(compiled);
  const VerifyResult v = backend.verify(ctx);
  ASSERT_EQ(v.status, m.verified) << v.evidence;
  std::string evidence = v.evidence;
  if (m.verified == jobs::Status::ok) {
    const TimeResult t = backend.time(ctx);
    EXPECT_EQ(t.status, m.timed) << t.evidence;
    evidence = t.evidence;
  } else {
    EXPECT_TRUE(v.failed_case.rfind("engine_trace=1", 0) == 0 || v.failed_case.rfind("engine_envelope=1", 0) == 0)
        << v.failed_case;
  }

  if (!m.evidence.empty()) {
    EXPECT_NE(evidence.find(m.evidence), std::string::npos) << evidence;
  }
}

}  // namespace kforge::kernels::cuda::engine::testing
