#pragma once
// Independent random streams: a 64-bit seed mixed from the campaign seed and small integers (generation, island,
// task) with SplitMix64, so that islands and generations draw independent streams and a resumed driver draws the
// same ones again.
#include <cstdint>

#include "kforge/jobs/seed.hpp"

namespace kforge::scheduler {

constexpr std::uint64_t mix_seed(std::uint64_t seed, std::uint64_t a, std::uint64_t b) {
  return jobs::splitmix64(jobs::splitmix64(jobs::splitmix64(seed) ^ a) ^ b);
}

}  // namespace kforge::scheduler
