// Not a test: prints GFLOP/s of a few gemm genomes against single-threaded OpenBLAS, to tune the host template.
//   kforge_gemm_speed_probe [M N K]     (default 384 384 384)
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "kforge/kernels/backend.hpp"
#include "kforge/kernels/gemm_problem.hpp"
#include "kforge/kernels/timing.hpp"

namespace {

using kforge::jobs::Genome;

Genome genome(int mc, int nc, int kc, int mr, int nr, int vec, int unroll, int pack, const char* order) {
  Genome g;
  g.params = {{"MC", std::int64_t{mc}},         {"NC", std::int64_t{nc}},     {"KC", std::int64_t{kc}},
              {"MR", std::int64_t{mr}},         {"NR", std::int64_t{nr}},     {"VEC", std::int64_t{vec}},
              {"UNROLL", std::int64_t{unroll}}, {"PACK", std::int64_t{pack}}, {"LOOP_ORDER", std::string(order)}};
  return g;
}

double gflops(double flop, double ms) { return flop / (ms * 1e-3) / 1e9; }

}  // namespace

int main(int argc, char** argv) {
  using namespace kforge;
  jobs::EvalSettings s;
  const int m = argc > 3 ? std::atoi(argv[1]) : 384, n = argc > 3 ? std::atoi(argv[2]) : 384,
            k = argc > 3 ? std::atoi(argv[3]) : 384;
  s.problem = {{"M", m}, {"N", n}, {"K", k}};
  s.warmup = 3;
  s.min_repeats = 20;
  s.max_repeats = 60;
  s.target_spread = 0.02;
  s.time_cap_s = 1.0;
  s.baselines = {"openblas", "reference"};
  const double flop = 2.0 * m * n * k;
  const auto scratch = std::filesystem::temp_directory_path() / ("kforge-speed-probe-" + std::to_string(getpid()));
  auto backend = kernels::make_backend("host", "gemm");

  kernels::EvalContext ctx{&s, scratch, 99, "host"};
  const auto baselines = backend->time_baselines(ctx);
  const double openblas_ms = baselines[0].time_median_ms;
  for (const auto& b : baselines)
    std::printf("%-52s median %8.3f ms  %7.1f GFLOP/s\n", b.name.c_str(), b.time_median_ms,
                gflops(flop, b.time_median_ms));

  const std::vector<Genome> genomes = {
      genome(96, 384, 384, 6, 16, 8, 4, 1, "jpi"), genome(96, 384, 384, 8, 24, 8, 4, 1, "jpi"),
      genome(64, 512, 256, 4, 24, 8, 4, 1, "pji"), genome(128, 1024, 384, 6, 16, 8, 8, 1, "jip"),
      genome(96, 384, 384, 6, 16, 8, 4, 0, "jpi"), genome(192, 512, 192, 8, 16, 8, 2, 1, "jpi"),
      genome(64, 256, 128, 4, 8, 4, 2, 0, "pji"),  genome(32, 128, 64, 2, 8, 1, 1, 1, "jpi")};
  for (std::size_t i = 0; i < genomes.size(); ++i) {
    jobs::Candidate c;
    c.genome = genomes[i];
    ctx.scratch = scratch / std::to_string(i);
    const auto compiled = backend->compile(backend->render(c), c, ctx);
    if (!compiled.ok) {
      std::printf("%s: compile error\n%s\n", c.genome.to_text().c_str(), compiled.log.c_str());
      continue;
    }
    backend->load(compiled);
    const auto v = backend->verify(ctx);
    const auto t = backend->time(ctx);
    const double median = kernels::median_of(t.samples_ms);
    std::printf("%-52s median %8.3f ms  %7.1f GFLOP/s  %.3fx openblas  %s %s\n", c.genome.to_text().c_str(), median,
                gflops(flop, median), openblas_ms / median, std::string(jobs::to_string(v.status)).c_str(),
                v.evidence.c_str());
  }
  std::filesystem::remove_all(scratch);
}
