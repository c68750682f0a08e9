#pragma once
// How kforge serve picks each next token from an engine's logits (docs/serving.md, "Sampling"): the same code for
// every engine, so two engines that return the same logits return the same tokens for the same seed.
#include <cstdint>
#include <random>
#include <span>

namespace kforge::serve {

struct SamplingParams {
  double temperature = 1.0;  // 0 (or below kGreedyBelow) = greedy (the argmax, lowest index on ties)
  std::int64_t top_k = 0;    // keep the k most likely tokens; 0 (or -1 in a request) = all
  double top_p = 1.0;        // keep the fewest most likely tokens whose probabilities sum to at least top_p
  // Below this a temperature is greedy: 1 / temperature in float would overflow long before 1e-5, and e^(-1e5 x
  // the gap) leaves only the top token anyway.
  static constexpr double kGreedyBelow = 1e-5;
  bool greedy() const { return temperature < kGreedyBelow || top_k == 1; }
};

// A request's random stream: from its seed when it has one (so the same request on the same logits gives the same
// tokens), else from the operating system's entropy.
class TokenSampler {
 public:
  TokenSampler(const SamplingParams& params, std::uint64_t seed);
  // The next token drawn from one row of logits: weights e^((logit - max) / temperature) in float, summed in
  // double, one draw.
  std::int32_t pick(std::span<const float> logits);

 private:
  SamplingParams params_;
  std::mt19937_64 rng_;
};

// Checks a request's values; "" when they are usable, else the field that is not (temperature outside [0, 2],
// top_p outside (0, 1], top_k below -1) and why.
struct SamplingError {
  const char* field = "";
  const char* why = "";
};
SamplingError sampling_error(const SamplingParams& params);

}  // namespace kforge::serve
