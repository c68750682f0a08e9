#pragma once
// SplitMix64 (Steele, Lea, Flood 2014): one well-mixed 64-bit value from another. Every seed kforge derives
// (per generation and island, per task, per candidate, per verification shape) goes through these, so that
// neighbouring inputs give independent random streams.
#include <cstdint>

namespace kforge::jobs {

inline constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

// The finaliser alone: spreads the bits of an already-varied value.
constexpr std::uint64_t splitmix64_finalise(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// One step of the generator: the state advanced by the golden gamma, then finalised.
constexpr std::uint64_t splitmix64(std::uint64_t x) { return splitmix64_finalise(x + kGoldenGamma); }

}  // namespace kforge::jobs
