// Writes a small campaign folder (gen-0000.h5, gen-0001.h5, campaign.h5) for the Python reader's test.
#include <cstdio>
#include <exception>
#include <filesystem>

#include "archive_samples.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s CAMPAIGN_DIR   (the folder must not hold generation files yet)\n", argv[0]);
    return 2;
  }
  try {
    namespace kj = kforge::jobs;
    std::filesystem::path dir = argv[1];
    std::filesystem::create_directories(dir);
    kj::write_generation(dir / kj::generation_file_name(0), kj::testing::sample_generation(0, 3));
    kj::write_generation(dir / kj::generation_file_name(1), kj::testing::sample_generation(1, 5));
    kj::rebuild_campaign_index(dir, kj::testing::sample_provenance());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_sample_archive: %s\n", e.what());
    return 1;
  }
  return 0;
}
