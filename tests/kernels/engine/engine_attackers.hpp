#pragma once
// Engines that try to cheat the clock, shared by the backend's tests (engine_clock_cheats_test.cpp) and
// bench/engine_serve's (tests/bench/engine_serve_cheats_test.cpp): C++ text for testing::wrapped_engine, which
// wraps the honest template engine (kforge_honest_engine).
#include <string>

#include "kforge/engine/model_weights.hpp"

namespace kforge::kernels::engine::testing {

// What every attacker below shares: the vocabulary, which process it is in (the verification process begins with
// the script's 7-token prompt alone in slot 0; every timed run is a process of its own), and a row made wrong.
inline const char* kAttackerGlobals = R"(
static int64_t vocab = 0;
static int mode = -1;  // 0: the verification process, 1: a timed run's
static const int64_t* rows_of(void* const* buffers) { return static_cast<const int64_t*>(buffers[0]); }
static void classify(const int64_t* args, void* const* buffers) {
  if (args[0] == 0) vocab = args[8];
  if (mode >= 0 || args[0] != 1) return;
  const int64_t* rows = rows_of(buffers);
  mode = (args[1] == 1 && rows[0] == 0 && rows[1] == 0 && rows[2] == 7) ? 0 : 1;
}
static void spoil(void* const* buffers, int64_t s) {
  float* row = static_cast<float*>(buffers[2]) + s * vocab;
  for (int64_t i = 0, j = vocab - 1; i < j; ++i, --j) std::swap(row[i], row[j]);
}
)";

// Remembers the logits of every token history it computed, in memory and in files wherever it may write (its own
// folder, found through dladdr; the folders beside it, where earlier runs' processes lived; /tmp, /dev/shm), and
// answers a step whose histories it has all seen from that memory without computing, saying so on stderr. Against
// a harness that served the same trace twice to one process, or to processes sharing a folder, it replays from the
// second run on.
inline const char* kReplayGlobals = R"(
#include <dlfcn.h>
#include <fstream>
#include <string>
#include <climits>
#include <cstdlib>
static std::map<int64_t, std::vector<int32_t>> history;
static std::map<std::vector<int32_t>, std::vector<float>> memo;
static std::vector<std::string> places;
extern "C" void kforge_engine(const int64_t* args, void* const* buffers);
static void find_places() {
  Dl_info info{};
  char real[PATH_MAX];
  std::string own = ".";
  if (dladdr(reinterpret_cast<void*>(&kforge_engine), &info) != 0 && realpath(info.dli_fname, real) != nullptr) {
    own = real;
    own = own.substr(0, own.rfind('/'));
  }
  places = {own + "/replay.bin", own + "/../replay.bin", own + "/../verify/replay.bin", "/tmp/kforge-test-replay.bin",
            "/dev/shm/kforge-test-replay.bin"};
  for (int n = 0; n <= 4; ++n) places.push_back(own + "/../run-" + std::to_string(n) + "/replay.bin");
}
static void load_memo() {
  find_places();
  for (const std::string& place : places) {
    std::ifstream in(place, std::ios::binary);
    int64_t n = 0;
    while (in.read(reinterpret_cast<char*>(&n), sizeof n)) {
      std::vector<int32_t> key(n);
      std::vector<float> row(vocab);
      in.read(reinterpret_cast<char*>(key.data()), n * 4);
      in.read(reinterpret_cast<char*>(row.data()), vocab * 4);
      if (in) memo[key] = row;
    }
  }
}
static void remember(const std::vector<int32_t>& key, const float* row) {
  memo[key] = std::vector<float>(row, row + vocab);
  for (const std::string& place : places) {
    std::ofstream out(place, std::ios::binary | std::ios::app);
    const int64_t n = static_cast<int64_t>(key.size());
    out.write(reinterpret_cast<const char*>(&n), sizeof n);
    out.write(reinterpret_cast<const char*>(key.data()), n * 4);
    out.write(reinterpret_cast<const char*>(row), vocab * 4);
  }
}
)";

inline const char* kReplayBody = R"(
  classify(args, buffers);
  if (args[0] == 0) { kforge_honest_engine(args, buffers); load_memo(); return; }
  const int64_t* rows = rows_of(buffers);
  const int32_t* tokens = static_cast<const int32_t*>(buffers[1]);
  std::vector<std::vector<int32_t>> keys;
  bool all_seen = true;
  for (int64_t s = 0, at = 0; s < args[1]; at += rows[3 * s + 2], ++s) {
    std::vector<int32_t>& h = history[rows[3 * s]];
    if (rows[3 * s + 1] == 0) h.clear();
    h.insert(h.end(), tokens + at, tokens + at + rows[3 * s + 2]);
    keys.push_back(h);
    all_seen = all_seen && memo.count(h) == 1;
  }
  float* logits = static_cast<float*>(buffers[2]);
  if (all_seen) {
    for (int64_t s = 0; s < args[1]; ++s) std::memcpy(logits + s * vocab, memo[keys[s]].data(), vocab * 4);
    std::fprintf(stderr, "kforge-test-replay-fired\n");
    return;
  }
  kforge_honest_engine(args, buffers);
  for (int64_t s = 0; s < args[1]; ++s) remember(keys[s], logits + s * vocab);)";

// Counts the requests a timed run's process starts: more than the run has (`requests`) means the process serves
// a second run, whose first step it marks on stderr. A harness that kept one process for several runs would let
// an engine carry anything from one run to the next (a blind replay by step, a skipped layer on a later run).
inline std::string second_run_body(int requests) {
  return R"(
  classify(args, buffers);
  static int started = 0;
  if (args[0] == 1 && mode == 1)
    for (int64_t s = 0; s < args[1]; ++s)
      if (rows_of(buffers)[3 * s + 1] == 0 && ++started == )" +
         std::to_string(requests + 1) + R"() std::fprintf(stderr, "kforge-test-second-run\n");
  kforge_honest_engine(args, buffers);)";
}

// o_proj and down_proj of every layer but the first zeroed at init: those layers add nothing to the residual stream,
// so the engine is as fast as a one-layer model if it then skips them (3 of 4 layers in a 4-layer model).
inline std::string skipping_layers_body(const jobs::ModelSpec& model) {
  const Weights w = empty_weights(model);
  std::string zero;
  for (std::int64_t l = 1; l < model.layers; ++l) {
    const std::string prefix = "model.layers." + std::to_string(l) + ".";
    for (std::size_t i = 0; i < w.tensors.size(); ++i) {
      if (w.tensors[i].name != prefix + "self_attn.o_proj.weight" &&
          w.tensors[i].name != prefix + "mlp.down_proj.weight")
        continue;
      zero += "std::memset(weights + " + std::to_string(w.offsets[i]) + ", 0, " +
              std::to_string(w.tensors[i].elements()) + " * sizeof(float));\n";
    }
  }
  return "if (args[0] == 0) { float* weights = static_cast<float*>(buffers[0]);\n" + zero +
         "}\nkforge_honest_engine(args, buffers);";
}

}  // namespace kforge::kernels::engine::testing
