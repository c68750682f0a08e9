#include "kforge/engine/workload_trace.hpp"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

namespace kforge::kernels::engine {

std::int64_t uniform_in(std::uint64_t bits, std::int64_t lo, std::int64_t hi) {
  // Modulo: for the ranges of a trace (under 2^32) the bias is below 2^-32.
  const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
  return lo + static_cast<std::int64_t>(span == 0 ? bits : bits % span);
}

double unit_interval(std::uint64_t bits) { return static_cast<double>(bits >> 11) * 0x1.0p-53; }

std::int64_t WorkloadTrace::max_context() const {
  std::int64_t most = 0;
  for (const auto& r : requests) most = std::max(most, static_cast<std::int64_t>(r.prompt.size()) + r.output_tokens);
  return most;
}

WorkloadTrace make_trace(const jobs::WorkloadSpec& w, std::int64_t vocab) {
  const auto bad = [](const std::string& why) { throw std::invalid_argument("workload: " + why); };
  if (w.requests < 1) bad("requests must be at least 1, not " + std::to_string(w.requests));
  if (w.prompt_min < 1 || w.prompt_max < w.prompt_min) bad("prompt lengths need 1 <= prompt_min <= prompt_max");
  if (w.output_min < 1 || w.output_max < w.output_min) bad("output lengths need 1 <= output_min <= output_max");
  if (w.arrival_rate < 0.0 || !std::isfinite(w.arrival_rate)) bad("arrival_rate must be >= 0");
  if (w.arrival_rate == 0.0 && w.concurrency < 1) bad("concurrency must be at least 1 in a closed loop");
  if (vocab < 1) bad("the model's vocab must be at least 1");

  std::mt19937_64 rng(w.seed);
  WorkloadTrace trace;
  trace.open_loop = w.arrival_rate > 0.0;
  trace.concurrency = trace.open_loop ? 0 : w.concurrency;
  double clock_ms = 0.0;
  for (std::int64_t n = 0; n < w.requests; ++n) {
    TraceRequest r;
    r.prompt.resize(static_cast<std::size_t>(uniform_in(rng(), w.prompt_min, w.prompt_max)));
    r.output_tokens = uniform_in(rng(), w.output_min, w.output_max);
    for (auto& token : r.prompt) token = static_cast<std::int32_t>(uniform_in(rng(), 0, vocab - 1));
    if (trace.open_loop) {
      // Poisson process: exponential gaps with mean 1 / rate; the first request arrives after one gap too.
      clock_ms += -std::log1p(-unit_interval(rng())) / w.arrival_rate * 1e3;
      r.arrival_ms = clock_ms;
    }
    trace.requests.push_back(std::move(r));
  }
  return trace;
}

}  // namespace kforge::kernels::engine
