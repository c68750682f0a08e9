#pragma once
// Shared by the host gemm backend tests: a scratch folder per test, small-problem settings, genomes.
#include <filesystem>
#include <string>

#include "kforge/jobs/candidate.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/kernels/backend.hpp"
#include "kforge/test_support/scratch_dir.hpp"

namespace kforge::kernels::testing {

using ScratchDir = test_support::ScratchDir;

// Small problem and a short timing policy so the whole suite stays fast.
inline jobs::EvalSettings small_settings(int size = 48) {
  jobs::EvalSettings s;
  s.problem = {{"M", size}, {"N", size + 3}, {"K", size - 5}};
  s.warmup = 1;
  s.min_repeats = 2;
  s.max_repeats = 4;
  s.time_cap_s = 0.2;
  s.compile_timeout_s = 60;
  s.compile_flags = "-O2 -march=native";
  s.baselines = {"reference", "openblas"};
  return s;
}

struct GemmGenome {
  int MC = 96, NC = 384, KC = 384, MR = 6, NR = 16, VEC = 8, UNROLL = 4, PACK = 1;
  std::string LOOP_ORDER = "jpi";
  jobs::Genome genome() const {
    jobs::Genome g;
    g.params = {{"MC", std::int64_t{MC}},         {"NC", std::int64_t{NC}},     {"KC", std::int64_t{KC}},
                {"MR", std::int64_t{MR}},         {"NR", std::int64_t{NR}},     {"VEC", std::int64_t{VEC}},
                {"UNROLL", std::int64_t{UNROLL}}, {"PACK", std::int64_t{PACK}}, {"LOOP_ORDER", LOOP_ORDER}};
    return g;
  }
};

inline jobs::Candidate gemm_candidate(const jobs::Genome& genome, std::string source = {}) {
  jobs::Candidate c;
  c.family = "gemm";
  c.backend = "host";
  c.genome = genome;
  c.source = std::move(source);
  return c;
}

inline EvalContext context(const jobs::EvalSettings& settings, const std::filesystem::path& scratch,
                           std::uint64_t seed = 12345) {
  EvalContext ctx;
  ctx.settings = &settings;
  ctx.scratch = scratch;
  ctx.seed = seed;
  return ctx;
}

}  // namespace kforge::kernels::testing
