// Distinct-valued test data: a field that is not written or read back shows up as a mismatch.
#include "archive_samples.hpp"

#include <limits>
#include <stdexcept>

namespace kforge::jobs::testing {
namespace {

std::string tagged(const std::string& base, int i) { return base + "-" + std::to_string(i); }

}  // namespace

EvalRecord sample_record(int i) {
  EvalRecord r;
  Candidate c = sample_candidate(i, 3);
  r.candidate_id = c.id;
  r.family = "gemm";
  r.backend = i % 2 ? "cuda" : "host";
  r.params = c.genome.to_text();
  r.parents = i == 1 ? std::vector<std::string>{} : c.parents;
  r.op = tagged("mutation", i);
  r.generation = 3;
  r.island = 10 + i;
  r.target = tagged("hopper", i);
  r.status = kAllStatuses[static_cast<std::size_t>(i) % std::size(kAllStatuses)];
  const bool unmeasured = i == 1;
  r.time_median_ms = unmeasured ? kNaN : 1.25 + i;
  r.time_min_ms = unmeasured ? kNaN : 1.125 + i;
  r.time_spread_rel = unmeasured ? kNaN : 0.0625 * (i + 1);
  // true for rows 0 and 3: the Python reader's test expects exactly these
  r.timing_noisy = i % 3 == 0;
  r.sample_count = 100 + i;  // deliberately not samples_ms.size(): both must survive
  if (!unmeasured) r.samples_ms = {1.5 + i, 1.25 + i, kNaN, 1.0 / 3.0 + i};
  r.speedup = unmeasured ? kNaN : 2.5 + i;
  r.max_abs_error = unmeasured ? kNaN : 1e-7 * (i + 1);
  r.max_rel_error = unmeasured ? kNaN : 1e-9 * (i + 1);
  r.compile_ms = 300.5 + i;
  r.registers = 40 + i;
  r.shared_bytes = 49152 + i;
  r.spill_bytes = 8 * i + 4;
  r.host = tagged("node", i);
  r.gpu_model = i % 2 ? "NVIDIA H100 80GB HBM3" : "";
  r.slurm_job_id = 9000000000LL + i;
  r.slurm_array_task = 20 + i;
  r.rank = 30 + i;
  r.evaluated_at = "2026-12-02T10:14:4" + std::to_string(i % 10) + "Z";
  r.harness_ms = 5000.25 + i;
  r.evidence = "compile log line 1\nline 2 with \"quotes\" and ünïcödé " + std::to_string(i) + "\n";
  r.failed_case =
      i == 1 ? "" : "M=" + std::to_string(7 + i) + " N=5 K=3 lda=3 ldb=5 ldc=5 seed=" + std::to_string(99 + i);
  r.source = c.source;
  if (i % 2 == 0)
    r.ptx = ".version 8.8\n.target sm_90a\n.visible .entry kforge_gemm() { ret; }\n// record " + std::to_string(i);
  // rows 0, 2, ...: an engine's figures (distinct per row, one unmeasured); odd rows: none, as a kernel's
  if (i % 2 == 0)
    r.metrics = {{"output_tokens_per_s", "tokens/s", 100.5 + i},
                 {"ttft_p99_ms", "ms", i == 2 ? kNaN : 7.25 * (i + 1)},
                 {"op_share.mlp", "1", 0.125 * (i + 1)}};
  return r;
}

Candidate sample_candidate(int i, int generation) {
  Candidate c;
  c.family = "gemm";
  c.backend = i % 2 ? "cuda" : "host";
  c.genome = Genome::from_text("KC=" + std::to_string(64 * (i + 1)) + ";alpha=0.1;order=\"i,k;j\"");
  c.source = "// candidate " + std::to_string(i) + "\nextern \"C\" void kernel() {}\n";
  c.compile_flags = i % 2 ? "-O3" : "";
  c.parents = {std::string(32, 'a'), std::string(31, 'b') + std::to_string(i % 10)};
  c.op = i == 0 ? "init" : "crossover";
  c.generation = generation;
  c.island = i % 3;
  assign_id(c);
  return c;
}

Baseline sample_baseline(int i) {
  return Baseline{tagged("openblas", i), 0.5 + i, 0.25 + i, 7 + i, tagged("node", i), 3 + i};
}

Provenance sample_provenance() {
  Provenance p;
  p.version = "0.1.0";
  p.created = "2026-12-02T10:00:00Z";
  p.config_hash = sha256_hex("campaign.yaml + site.yaml");
  p.host = "login01";
  p.campaign = "gemm-demo";
  return p;
}

Generation sample_generation(int generation, int records) {
  Generation g;
  g.provenance = sample_provenance();
  g.generation = generation;
  for (int i = 0; i < records; ++i) {
    g.records.push_back(sample_record(i));
    g.records.back().generation = generation;
    g.candidates.push_back(sample_candidate(i, generation));
    g.population.push_back(
        {i % 3, g.candidates.back().id, i == 1 ? std::numeric_limits<double>::infinity() : 1.5 * (i + 1)});
  }
  g.baselines = {sample_baseline(0), sample_baseline(1)};
  // What the campaign learnt: every kind of row, NaN figures included.
  g.operator_weights = {{0, "mutation", 0.55, 9, 8, 3}, {1, "agent:rewriter", 0.25, 4, 2, 1}};
  g.lessons.parameters = {{"MC", "64", 12, 2, 1.25, 0.9, 0.8, 0.82, 0.71, 0.95},
                          {"order", "\"ikj\"", 3, 3, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN}};
  g.lessons.operators = {{"mutation", 20, 18, 5}, {"immigrant", 4, 4, 0}};
  g.lessons.failures = {{"compile_error", "error at line #: expected ';'", 3, "abc123"}};
  g.lessons.summary = {"MC=64 runs at 0.80x the typical time (10 ok), MC=8 at 1.70x (4 ok).", "ünïcödé sentence"};
  g.validation = {{"M=7 N=5 K=3 lda=3 ldb=5 ldc=5 seed=42", generation, "abc123", "wrong_result"}};
  g.model_quality = {{0, "a100", 0.56, 96}, {1, "mi250x", -0.125, 3}};
  return g;
}

Shard sample_shard(int records) {
  Shard s;
  s.provenance = sample_provenance();
  s.generation = 4;
  s.island = 2;
  s.task = 17;
  s.target = "hopper";
  for (int i = 0; i < records; ++i) s.records.push_back(sample_record(i));
  s.baselines = {sample_baseline(0), sample_baseline(5)};
  return s;
}

}  // namespace kforge::jobs::testing
