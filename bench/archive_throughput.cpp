// Gather + archive throughput: 10,000 records written as 10 task shards, gathered back and written as one
// generation file, against writing the same number of bytes with plain write() + fsync. Prints records/s and
// the ratio (archive time / plain time).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <random>
#include <string>

#include "bench_context.hpp"
#include "kforge/jobs/archive.hpp"

namespace fs = std::filesystem;
using namespace kforge;
using Clock = std::chrono::steady_clock;

namespace {

jobs::EvalRecord make_record(int i, std::mt19937_64& rng) {
  jobs::EvalRecord r;
  r.candidate_id = jobs::sha256_hex(std::to_string(i)).substr(0, 32);
  r.family = "gemm";
  r.backend = "host";
  r.params = "KC=128;LOOP_ORDER=\"jpi\";MC=64;MR=4;NC=256;NR=16;PACK=1;UNROLL=4;VEC=8";
  r.parents = {jobs::sha256_hex(std::to_string(i + 1)).substr(0, 32)};
  r.op = "mutation";
  r.generation = 3;
  r.target = "host";
  r.status = jobs::Status::ok;
  std::uniform_real_distribution<double> t(1.0, 2.0);
  for (int s = 0; s < 10; ++s) r.samples_ms.push_back(t(rng));
  r.time_median_ms = r.samples_ms[5];
  r.time_min_ms = 1.0;
  r.time_spread_rel = 0.04;
  r.time_spread_iqr = 0.02;
  r.sample_count = 10;
  r.speedup = 12.5;
  r.max_abs_error = 1e-6;
  r.max_rel_error = 1e-7;
  r.compile_ms = 800;
  r.host = "node001";
  r.rank = i % 4;
  r.evaluated_at = "2026-12-02T10:14:42Z";
  r.evidence = std::string(200, 'e');
  r.source = std::string(2000, 's');
  return r;
}

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

double plain_write(const fs::path& path, std::uintmax_t bytes) {
  std::string block(1 << 20, 'x');
  auto t0 = Clock::now();
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  for (std::uintmax_t done = 0; done < bytes; done += block.size()) {
    const size_t n = static_cast<size_t>(std::min<std::uintmax_t>(block.size(), bytes - done));
    if (::write(fd, block.data(), n) < 0) std::perror("write");
  }
  ::fsync(fd);
  ::close(fd);
  return seconds_since(t0);
}

}  // namespace

int main(int argc, char** argv) {
  const bool json = argc > 1 && std::string(argv[1]) == "--json";
  const int kRecords = 10000, kShards = 10;
  fs::path dir = fs::temp_directory_path() / ("kforge-bench-archive-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::mt19937_64 rng(1);

  std::vector<jobs::Shard> shards(kShards);
  for (int i = 0; i < kRecords; ++i) shards[static_cast<size_t>(i % kShards)].records.push_back(make_record(i, rng));

  auto t0 = Clock::now();
  for (int s = 0; s < kShards; ++s)
    jobs::write_shard(dir / ("shard-" + std::to_string(s) + ".h5"), shards[static_cast<size_t>(s)]);
  jobs::Generation g;
  g.generation = 3;
  for (int s = 0; s < kShards; ++s) {
    jobs::Shard back = jobs::read_shard(dir / ("shard-" + std::to_string(s) + ".h5"));
    g.records.insert(g.records.end(), back.records.begin(), back.records.end());
  }
  jobs::write_generation(dir / "gen-0003.h5", g);
  jobs::rebuild_campaign_index(dir, g.provenance);
  const double archive_s = seconds_since(t0);

  std::uintmax_t bytes = fs::file_size(dir / "gen-0003.h5");
  for (int s = 0; s < kShards; ++s) bytes += fs::file_size(dir / ("shard-" + std::to_string(s) + ".h5"));
  const double plain_s = plain_write(dir / "plain.bin", bytes);
  fs::remove_all(dir);

  const double rps = kRecords / archive_s;
  if (json) {
    std::cout << "{";
    bench::write_context_json(std::cout, "archive_throughput");
    std::printf(
        ",\"records\":%d,\"bytes\":%ju,\"archive_s\":%.4f,\"plain_write_s\":%.4f,\"records_per_s\":%.0f,"
        "\"ratio_archive_over_plain\":%.2f}\n",
        kRecords, bytes, archive_s, plain_s, rps, archive_s / plain_s);
  } else {
    std::printf(
        "archive_throughput: %d records (%ju bytes: 10 shards written + read back + 1 generation file + index)\n",
        kRecords, bytes);
    std::printf("  kforge archive  %.3f s  = %.0f records/s\n", archive_s, rps);
    std::printf("  plain write     %.3f s  (same bytes, write + fsync)\n", plain_s);
    std::printf("  ratio archive / plain write = %.2f\n", archive_s / plain_s);
  }
  return 0;
}
