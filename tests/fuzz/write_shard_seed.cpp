// Writes the shard seed of fuzz_shard (corpus/fuzz_shard/two-records.h5) with the real writer, so that the seed
// carries every table, attribute and digest a shard has. Not part of `fuzzers`: run by hand when the schema
// changes (docs/testing.md, "Fuzzing").
#include <cstdio>
#include <exception>

#include "../jobs/archive_samples.hpp"
#include "kforge/jobs/archive.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s SHARD.h5\n", argv[0]);
    return 2;
  }
  try {
    kforge::jobs::write_shard(argv[1], kforge::jobs::testing::sample_shard(2));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "write_shard_seed: %s\n", e.what());
    return 1;
  }
  return 0;
}
