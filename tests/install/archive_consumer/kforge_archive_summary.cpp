// kforge_archive_summary DIR: reads every generation file of a kforge campaign folder with the installed
// kforge::jobs library and prints one line per generation and the fastest ok record:
//   generation 0: 24 records, 20 ok
//   best: 1.234567 ms  <candidate id>  target host  generation 3
#include <cstdio>
#include <exception>
#include <filesystem>
#include <optional>
#include <string>

#include "kforge/jobs/archive.hpp"
#include "kforge/jobs/status.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CAMPAIGN_DIR\n", argv[0]);
    return 2;
  }
  namespace kj = kforge::jobs;
  const std::filesystem::path dir = argv[1];
  try {
    std::optional<kj::EvalRecord> best;
    std::size_t total = 0;
    for (int g = 0; std::filesystem::exists(dir / kj::generation_file_name(g)); ++g) {
      const kj::Generation gen = kj::read_generation(dir / kj::generation_file_name(g), {.generation = g});
      std::size_t ok = 0;
      for (const auto& r : gen.records) {
        if (r.status != kj::Status::ok) continue;
        ++ok;
        if (!best || r.time_median_ms < best->time_median_ms) best = r;
      }
      std::printf("generation %d: %zu records, %zu ok\n", g, gen.records.size(), ok);
      total += gen.records.size();
    }
    if (total == 0) {
      std::fprintf(stderr, "%s: no generation files (gen-0000.h5 ...)\n", argv[1]);
      return 1;
    }
    if (best) {
      std::printf("best: %.6f ms  %s  target %s  generation %d\n", best->time_median_ms, best->candidate_id.c_str(),
                  best->target.c_str(), static_cast<int>(best->generation));
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 1;
  }
  return 0;
}
