// Engines that try to cheat the clock (docs/isolation.md, "Engines"): each a hand-written engine wrapping the honest
// template, through the host engine backend as a campaign runs it (verify, then time), and through
// bench/engine_serve. Every attack ends not ok, or, where the harness leaves it nothing to work with (a replay, a
// prompt seen again), never fires: its engine says so on stderr when it does, and the test counts.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "engine_attackers.hpp"
#include "engine_test_support.hpp"
#include "kforge/engine/workload_trace.hpp"
#include "kforge/kernels/backend.hpp"
#include "kforge/kernels/timing.hpp"

namespace kforge::kernels::engine {
namespace {

using testing::kAttackerGlobals;
using testing::kReplayBody;
using testing::kReplayGlobals;
using testing::ScratchDir;
using testing::second_run_body;
using testing::wrapped_engine;

// Four slots and up to four sequences per step under the clock, prompts long enough for 16-token chunks: beyond the
// verification script's three slots, three sequences and 7-token chunks.
jobs::EvalSettings serving_settings() {
  jobs::EvalSettings s = testing::tiny_engine_settings("llama");
  s.engine.workload.requests = 8;
  s.engine.workload.concurrency = 4;
  s.warmup = 1;
  s.min_repeats = 2;
  s.max_repeats = 2;
  s.time_cap_s = 10;
  return s;
}

jobs::Genome serving_genome() {
  jobs::Genome g = testing::engine_genome();
  g.params["max_batch"] = std::int64_t{4};
  return g;
}

struct Outcome {
  VerifyResult verified;
  TimeResult timed;
  bool timed_run = false;
  std::string stderr_text;
  jobs::Status verdict() const { return verified.status != jobs::Status::ok ? verified.status : timed.status; }
};

// Verifies the engine and, when it passes, times it, as a campaign's evaluation does; the candidate's scratch folder
// is `folder` (the engine's shared object there, each timed run's process in folder/run-N).
Outcome run_engine_in(const std::filesystem::path& folder, const std::string& globals, const std::string& body,
                      const std::string& name, std::uint64_t seed = 12345) {
  const jobs::EvalSettings s = serving_settings();
  const auto backend = make_backend("host", "engine");
  const EvalContext ctx = testing::context(s, folder, seed);
  const jobs::Candidate c =
      testing::engine_candidate(serving_genome(), wrapped_engine(kAttackerGlobals + globals, body));
  Outcome out;
  ::testing::internal::CaptureStderr();
  const CompileResult compiled = backend->compile(backend->render(c), c, ctx);
  if (compiled.ok) {
    backend->load(compiled);
    out.verified = backend->verify(ctx);
    if (out.verified.status == jobs::Status::ok) {
      out.timed = backend->time(ctx);
      out.timed_run = true;
    }
  }
  out.stderr_text = ::testing::internal::GetCapturedStderr();
  EXPECT_TRUE(compiled.ok) << name << ":\n" << compiled.log;
  return out;
}

Outcome run_engine(const std::string& globals, const std::string& body, const std::string& name,
                   std::uint64_t seed = 12345) {
  ScratchDir scratch;
  return run_engine_in(scratch.sub(name), globals, body, name, seed);
}

void expect_wrong_in_the_envelope(const Outcome& o) {
  EXPECT_EQ(o.verified.status, jobs::Status::wrong_result) << o.verified.evidence;
  EXPECT_EQ(o.verified.failed_case.rfind("engine_envelope=1 request=", 0), 0u) << o.verified.failed_case;
  EXPECT_NE(o.verified.evidence.find("serving envelope"), std::string::npos) << o.verified.evidence;
}

void expect_caught_after_a_run(const Outcome& o, const std::string& evidence) {
  ASSERT_EQ(o.verified.status, jobs::Status::ok) << o.verified.evidence;
  EXPECT_EQ(o.timed.status, jobs::Status::cheat_detected) << o.timed.evidence;
  EXPECT_NE(o.timed.evidence.find("wrong under the clock"), std::string::npos) << o.timed.evidence;
  EXPECT_NE(o.timed.evidence.find(evidence), std::string::npos) << o.timed.evidence;
}

TEST(EngineClockCheats, TheHonestWrapperPassesAndIsTimed) {
  const Outcome o = run_engine("", "classify(args, buffers);\nkforge_honest_engine(args, buffers);", "honest");
  EXPECT_EQ(o.verified.status, jobs::Status::ok) << o.verified.evidence;
  EXPECT_EQ(o.timed.status, jobs::Status::ok) << o.timed.evidence;
  EXPECT_EQ(o.timed.samples_ms.size(), 2u);
}

TEST(EngineClockCheats, WrongOnlyInAHighSlotIsWrongResultInTheEnvelope) {
  expect_wrong_in_the_envelope(run_engine("", R"(
  classify(args, buffers);
  kforge_honest_engine(args, buffers);
  if (args[0] == 1) for (int64_t s = 0; s < args[1]; ++s) if (rows_of(buffers)[3 * s] >= 3) spoil(buffers, s);)",
                                          "high_slot"));
}

TEST(EngineClockCheats, WrongOnlyInAHighSlotAndOnlyWhenTimedIsCaughtAfterTheRun) {
  expect_caught_after_a_run(run_engine("", R"(
  classify(args, buffers);
  kforge_honest_engine(args, buffers);
  if (args[0] == 1 && mode == 1)
    for (int64_t s = 0; s < args[1]; ++s) if (rows_of(buffers)[3 * s] >= 3) spoil(buffers, s);)",
                                       "high_slot_timed"),
                            "(slot 3)");
}

TEST(EngineClockCheats, WrongOnlyAboveThreeSequencesPerStepIsWrongResultInTheEnvelope) {
  expect_wrong_in_the_envelope(run_engine("", R"(
  classify(args, buffers);
  kforge_honest_engine(args, buffers);
  if (args[0] == 1 && args[1] > 3) for (int64_t s = 0; s < args[1]; ++s) spoil(buffers, s);)",
                                          "many_sequences"));
}

// Honest while chunks are at most the script's 7 tokens, wrong from the first longer chunk on.
TEST(EngineClockCheats, WrongOnlyOnceItSeesALongPrefillChunkIsWrongResultInTheEnvelope) {
  expect_wrong_in_the_envelope(run_engine("static bool serving = false;", R"(
  classify(args, buffers);
  if (args[0] == 1) for (int64_t s = 0; s < args[1]; ++s) serving = serving || rows_of(buffers)[3 * s + 2] > 8;
  kforge_honest_engine(args, buffers);
  if (args[0] == 1 && serving) for (int64_t s = 0; s < args[1]; ++s) spoil(buffers, s);)",
                                          "long_chunks"));
}

// Honest for a slot's first request, wrong for whoever uses the slot next, in the slots the script does not reuse.
TEST(EngineClockCheats, WrongOnlyOnAHighSlotsSecondRequestIsWrongResultInTheEnvelope) {
  expect_wrong_in_the_envelope(run_engine("static std::map<int64_t, int> starts;", R"(
  classify(args, buffers);
  const int64_t* rows = rows_of(buffers);
  if (args[0] == 1) for (int64_t s = 0; s < args[1]; ++s) if (rows[3 * s + 1] == 0) ++starts[rows[3 * s]];
  kforge_honest_engine(args, buffers);
  if (args[0] == 1)
    for (int64_t s = 0; s < args[1]; ++s) if (rows[3 * s] >= 3 && starts[rows[3 * s]] > 1) spoil(buffers, s);)",
                                          "second_request"));
}

// The spot check of an earlier kforge was one request drawn from the evaluation's seed: an agent could compute it
// (or tune a comment until the source's hash moved it) and be wrong everywhere else. Every request is counted in
// admission order, as the harness admits them; only the one the old rule would have checked is right.
TEST(EngineClockCheats, WrongEverywhereButThePredictableSpotCheckIsCaughtAfterTheRun) {
  const std::uint64_t seed = 777;
  const std::int64_t predicted = uniform_in(seed ^ kTimingStream, 0, serving_settings().engine.workload.requests - 1);
  expect_caught_after_a_run(run_engine("static std::map<int64_t, int64_t> request_in;\nstatic int64_t admitted = 0;",
                                       R"(
  classify(args, buffers);
  if (args[0] == 1) for (int64_t s = 0; s < args[1]; ++s) if (rows_of(buffers)[3 * s + 1] == 0) request_in[rows_of(buffers)[3 * s]] = admitted++;
  kforge_honest_engine(args, buffers);
  if (args[0] == 1 && mode == 1)
    for (int64_t s = 0; s < args[1]; ++s) if (request_in[rows_of(buffers)[3 * s]] != )" +
                                           std::to_string(predicted) + R"() spoil(buffers, s);)",
                                       "dodge", seed),
                            " run ");
}

TEST(EngineClockCheats, NoProcessServesTwoRuns) {
  const Outcome o = run_engine("", second_run_body(8), "second_run");
  EXPECT_EQ(o.stderr_text.find("kforge-test-second-run"), std::string::npos) << o.stderr_text;
  EXPECT_EQ(o.verdict(), jobs::Status::ok) << o.verified.evidence << o.timed.evidence;
  EXPECT_EQ(o.timed.samples_ms.size(), 2u);  // a warm-up and two timed runs: three processes
}

TEST(EngineClockCheats, ARememberedRunNeverComesBackToBeReplayed) {
  const Outcome o = run_engine(kReplayGlobals, kReplayBody, "replay");
  EXPECT_EQ(o.stderr_text.find("kforge-test-replay-fired"), std::string::npos)
      << "the engine replayed a remembered step:\n"
      << o.stderr_text;
  EXPECT_EQ(o.verified.status, jobs::Status::ok) << o.verified.evidence;
  ASSERT_TRUE(o.timed_run);
  EXPECT_EQ(o.timed.status, jobs::Status::ok) << o.timed.evidence;  // it computed every step: an honest engine
  EXPECT_EQ(o.timed.samples_ms.size(), 2u);  // two timed runs after a warm-up: three chances to replay
  std::remove("/tmp/kforge-test-replay.bin");
  std::remove("/dev/shm/kforge-test-replay.bin");
}

// Runs one layer of four (here: answers wrongly, as a skipped layer does) for a prompt it has seen before, whole, in
// this process or, through a file, in an earlier one; says so on stderr.
TEST(EngineClockCheats, APromptSeenBeforeNeverComesBackToSkipLayersOn) {
  const Outcome o = run_engine(R"(
#include <fstream>
#include <string>
static std::set<std::vector<int32_t>> seen;
static std::set<int64_t> lazy;
static const char* kSeen = "/tmp/kforge-test-prompts.bin";)",
                               R"(
  classify(args, buffers);
  if (args[0] == 0) {
    std::ifstream in(kSeen, std::ios::binary);
    for (int64_t n = 0; in.read(reinterpret_cast<char*>(&n), sizeof n);) {
      std::vector<int32_t> prompt(n);
      if (in.read(reinterpret_cast<char*>(prompt.data()), n * 4)) seen.insert(prompt);
    }
  }
  kforge_honest_engine(args, buffers);
  if (args[0] != 1) return;
  const int64_t* rows = rows_of(buffers);
  const int32_t* tokens = static_cast<const int32_t*>(buffers[1]);
  for (int64_t s = 0, at = 0; s < args[1]; at += rows[3 * s + 2], ++s) {
    if (rows[3 * s + 1] == 0) {
      std::vector<int32_t> prompt(tokens + at, tokens + at + rows[3 * s + 2]);
      if (seen.count(prompt)) { lazy.insert(rows[3 * s]); std::fprintf(stderr, "kforge-test-skip-fired\n"); }
      else {
        lazy.erase(rows[3 * s]);
        seen.insert(prompt);
        const int64_t n = static_cast<int64_t>(prompt.size());
        std::ofstream out(kSeen, std::ios::app | std::ios::binary);
        out.write(reinterpret_cast<const char*>(&n), sizeof n);
        out.write(reinterpret_cast<const char*>(prompt.data()), n * 4);
      }
    }
    if (lazy.count(rows[3 * s])) spoil(buffers, s);
  })",
                               "sighting");
  std::remove("/tmp/kforge-test-prompts.bin");
  const bool fired = o.stderr_text.find("kforge-test-skip-fired") != std::string::npos;
  EXPECT_FALSE(fired) << o.stderr_text;
  if (fired) {
    EXPECT_NE(o.verdict(), jobs::Status::ok);  // had it ever fired, its wrong answers were caught
  }
  EXPECT_EQ(o.verdict(), jobs::Status::ok) << o.verified.evidence << o.timed.evidence;
  EXPECT_TRUE(o.timed_run);
}

}  // namespace
}  // namespace kforge::kernels::engine
