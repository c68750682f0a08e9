// bench/engine_serve times only engines that are right: the engines of engine_clock_cheats_test.cpp's attacks,
// written to files and served by the real engine_serve binary as bench/engine_vs_peers.sh runs it. An engine that
// fails verification or whose answers in any run disagree with the double reference gets exit 1 and no figure;
// a replaying engine, served the same trace three times, never finds its memory.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "engine_attackers.hpp"
#include "engine_test_support.hpp"

namespace kforge::kernels::engine {
namespace {

using testing::ScratchDir;

// The bench's tiny llama (4 layers) at concurrency 4 with the attackers' genome: slots 0..3, chunks of 16.
const char* kModelFlags =
    " --layers 4 --hidden 64 --heads 4 --kv-heads 2 --head-dim 16 --mlp-hidden 128 --vocab 256 --requests 8"
    " --prompt-min 4 --prompt-max 20 --output-min 2 --output-max 6 --concurrency 4 --runs 3";

jobs::ModelSpec bench_model() {
  jobs::ModelSpec m = testing::tiny_model("llama");
  m.layers = 4;
  m.weight_seed = 1;  // engine_serve's default
  return m;
}

struct Served {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

Served serve(const ScratchDir& scratch, const std::string& name, const std::string& source) {
  const std::filesystem::path file = scratch.path() / (name + ".cpp");
  std::ofstream(file) << source;
  const std::string genome =
      "fuse_qkv=0;fuse_gate_up=0;fold_norm=0;residual_epilogue=0;prepack=0;kv_block=16;"
      "threads=1;max_batch=4;prefill_chunk=16;schedule=\"decode_first\";"
      "MC=16;NC=32;KC=32;MR=2;NR=8;VEC=4;UNROLL=1;PACK=1;LOOP_ORDER=\"jpi\"";
  const std::string command = std::string(KFORGE_BINARY_DIR) + "/bin/engine_serve" + kModelFlags + " --genome '" +
                              genome + "' --source " + file.string() + " 2>&1";
  Served out;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) return out;
  std::array<char, 4096> chunk{};
  while (std::fgets(chunk.data(), chunk.size(), pipe) != nullptr) out.output += chunk.data();
  const int status = ::pclose(pipe);
  out.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

TEST(EngineServeCheats, AnHonestEngineIsTimedWithItsLogitErrorPrinted) {
  ScratchDir scratch;
  const Served s = serve(scratch, "honest",
                         testing::wrapped_engine(testing::kAttackerGlobals,
                                                 "classify(args, buffers);\n"
                                                 "kforge_honest_engine(args, buffers);"));
  EXPECT_EQ(s.exit_code, 0) << s.output;
  EXPECT_NE(s.output.find("\"max_logit_rel_error\":"), std::string::npos) << s.output;
}

TEST(EngineServeCheats, SkippingThreeLayersOfFourIsRefusedBeforeTiming) {
  ScratchDir scratch;
  const Served s = serve(scratch, "skip", testing::wrapped_engine("", testing::skipping_layers_body(bench_model())));
  EXPECT_EQ(s.exit_code, 1) << s.output;
  EXPECT_NE(s.output.find("fails verification"), std::string::npos) << s.output;
  EXPECT_EQ(s.output.find("output_tokens_per_s"), std::string::npos) << s.output;
}

TEST(EngineServeCheats, WrongInAHighSlotOnlyWhenTimedIsRefused) {
  ScratchDir scratch;
  const Served s = serve(scratch, "high_slot", testing::wrapped_engine(testing::kAttackerGlobals, R"(
  classify(args, buffers);
  kforge_honest_engine(args, buffers);
  if (args[0] == 1 && mode == 1)
    for (int64_t s = 0; s < args[1]; ++s) if (rows_of(buffers)[3 * s] >= 3) spoil(buffers, s);)"));
  EXPECT_EQ(s.exit_code, 1) << s.output;
  EXPECT_NE(s.output.find("disagree with the reference"), std::string::npos) << s.output;
  EXPECT_NE(s.output.find("(slot 3)"), std::string::npos) << s.output;
}

TEST(EngineServeCheats, AReplayingEngineServedTheSameTraceThreeTimesNeverReplays) {
  ScratchDir scratch;
  const Served s = serve(
      scratch, "replay",
      testing::wrapped_engine(std::string(testing::kAttackerGlobals) + testing::kReplayGlobals, testing::kReplayBody));
  std::remove("/tmp/kforge-test-replay.bin");
  std::remove("/dev/shm/kforge-test-replay.bin");
  EXPECT_EQ(s.exit_code, 0) << s.output;
  EXPECT_EQ(s.output.find("kforge-test-replay-fired"), std::string::npos) << s.output;
}

}  // namespace
}  // namespace kforge::kernels::engine
