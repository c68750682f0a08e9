// Harness overhead per candidate: what kforge adds around a candidate (fork + limits + seccomp + result pipe +
// wait, and the record's encode/decode for the MPI transfer) against the candidate's own compile + run time,
// measured in the same run on the demo campaign's problem size. Prints the ratio overhead / (compile + run).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <string>
#include <vector>

#include "bench_context.hpp"
#include "cascade.hpp"
#include "kforge/kernels/backend.hpp"
#include "kforge/mpi_eval/sandbox.hpp"
#include "record_codec.hpp"
#include "sandbox/candidate_process.hpp"

namespace fs = std::filesystem;
using namespace kforge;
using Clock = std::chrono::steady_clock;

namespace {

double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

void noop(void*, std::byte*, const kernels::host::CallHeader&) {}

// The fixed cost of one timed call through a confined candidate process (docs/isolation.md): wake it, one byte
// each way, stop it again. The median of many calls of a function that does nothing.
double candidate_call_ms(const fs::path& scratch) {
  kernels::host::CandidateProcess process(nullptr, &noop, scratch);
  process.start_now();
  std::vector<double> ms;
  for (int i = 0; i < 2000; ++i) ms.push_back(process.run());
  std::nth_element(ms.begin(), ms.begin() + static_cast<std::ptrdiff_t>(ms.size() / 2), ms.end());
  return ms[ms.size() / 2];
}

jobs::Candidate gemm_candidate(int mc, int nr, int kc) {
  jobs::Candidate c;
  c.family = "gemm";
  c.backend = "host";
  c.genome = jobs::Genome::from_text("KC=" + std::to_string(kc) + ";LOOP_ORDER=\"jpi\";MC=" + std::to_string(mc) +
                                     ";MR=4;NC=256;NR=" + std::to_string(nr) + ";PACK=1;UNROLL=2;VEC=8");
  jobs::assign_id(c);
  return c;
}

}  // namespace

int main(int argc, char** argv) {
  const bool json = argc > 1 && std::string(argv[1]) == "--json";
  fs::path scratch = fs::temp_directory_path() / ("kforge-bench-harness-" + std::to_string(::getpid()));
  fs::create_directories(scratch);

  // 1. The sandbox round trip with an empty body: spawn, limits, process ban, framed payload, wait.
  const int kSpawns = 100;
  mpi_eval::Limits limits;
  auto t0 = Clock::now();
  for (int i = 0; i < kSpawns; ++i) mpi_eval::run_sandboxed(limits, scratch, [] { return std::string(512, 'r'); });
  const double sandbox_ms = ms_since(t0) / kSpawns;

  // 2. The candidates' own work, through the real cascade (compile in the rank, verify + time in the child).
  jobs::TaskManifest manifest;
  manifest.family = "gemm";
  manifest.backend = "host";
  manifest.target = "host";
  manifest.settings.problem = {{"M", 384}, {"N", 384}, {"K", 384}};
  manifest.settings.max_repeats = 15;
  manifest.settings.time_cap_s = 0.5;
  auto backend = kernels::make_backend("host", "gemm");
  const jobs::Candidate candidates[] = {gemm_candidate(64, 16, 128), gemm_candidate(96, 8, 256),
                                        gemm_candidate(128, 16, 64), gemm_candidate(32, 8, 128)};
  double compile_ms = 0, run_ms = 0, harness_ms = 0, sample_count = 0;
  std::string encoded;
  for (const auto& c : candidates) {
    jobs::EvalRecord r = mpi_eval::evaluate_candidate(*backend, c, manifest, scratch, 0);
    if (r.status != jobs::Status::ok) std::cerr << "candidate " << c.id << ": " << r.evidence << "\n";
    compile_ms += r.compile_ms;
    run_ms += std::accumulate(r.samples_ms.begin(), r.samples_ms.end(), 0.0);
    sample_count += static_cast<double>(r.samples_ms.size());
    harness_ms += r.harness_ms;
    encoded = mpi_eval::encode_record(r);
  }
  const double n = static_cast<double>(std::size(candidates));

  // 3. The record's transfer cost: encode on the worker, decode on rank 0.
  const int kCodec = 2000;
  t0 = Clock::now();
  for (int i = 0; i < kCodec; ++i)
    (void)mpi_eval::decode_record(mpi_eval::encode_record(mpi_eval::decode_record(encoded)));
  const double codec_ms = ms_since(t0) / kCodec / 2;  // each loop decodes twice and encodes once; count one of each
  const double call_ms = candidate_call_ms(scratch);
  fs::remove_all(scratch);

  const double mean_sample_ms = run_ms / std::max(1.0, sample_count);
  const double overhead = sandbox_ms + codec_ms;
  const double own = (compile_ms + run_ms) / n;
  if (json) {
    std::cout << "{";
    bench::write_context_json(std::cout, "harness_overhead");
    std::printf(
        ",\"sandbox_round_trip_ms\":%.4f,\"record_codec_ms\":%.4f,\"compile_ms\":%.2f,\"timed_run_ms\":%.2f,"
        "\"harness_total_ms\":%.2f,\"ratio_overhead_over_own\":%.5f,\"candidate_call_ms\":%.5f,"
        "\"ratio_call_over_sample\":%.5f}\n",
        sandbox_ms, codec_ms, compile_ms / n, run_ms / n, harness_ms / n, overhead / own, call_ms,
        call_ms / mean_sample_ms);
  } else {
    std::printf("harness_overhead (gemm 384^3, %zu candidates, %d sandbox spawns)\n", std::size(candidates), kSpawns);
    std::printf("  sandbox round trip  %8.3f ms/candidate (fork, rlimits, seccomp, result pipe, wait)\n", sandbox_ms);
    std::printf("  record encode+decode %7.3f ms/candidate\n", codec_ms);
    std::printf("  candidate compile   %8.1f ms, timed runs %.1f ms (sum of samples)\n", compile_ms / n, run_ms / n);
    std::printf("  whole cascade       %8.1f ms (includes verification on 8 shapes)\n", harness_ms / n);
    std::printf("  ratio overhead / (compile + run) = %.4f\n", overhead / own);
    std::printf("  candidate process call %6.4f ms (median of 2000 empty calls: wake, reply, stop)\n", call_ms);
    std::printf("  ratio call / mean timed sample (%.3f ms) = %.4f\n", mean_sample_ms, call_ms / mean_sample_ms);
  }
  return 0;
}
