#pragma once
// What kforge serve counts, and /metrics in the Prometheus text format (docs/serving.md, "Metrics"). Written by the
// batcher and the HTTP sessions on their own threads, read by /metrics: every figure is an atomic.
#include <array>
#include <atomic>
#include <cstdint>
#include <string>

namespace kforge::serve {

// Upper bounds (seconds) of the latency histograms' buckets; +Inf is implied.
inline constexpr std::array<double, 12> kLatencyBuckets = {0.005, 0.01, 0.025, 0.05, 0.1,  0.25,
                                                           0.5,   1.0,  2.5,   5.0,  10.0, 30.0};

class Histogram {
 public:
  void observe(double seconds);
  std::string text(const std::string& name, const std::string& labels) const;

 private:
  std::array<std::atomic<std::uint64_t>, kLatencyBuckets.size() + 1> counts_{};
  std::atomic<std::uint64_t> micros_{0};  // the sum, in microseconds (atomic doubles have no fetch_add in C++20)
};

struct Metrics {
  // Requests by how they ended: length, stop, abort (the client went away or the engine failed), rejected (a 4xx
  // or 5xx before serving).
  std::atomic<std::uint64_t> finished_length{0}, finished_stop{0}, finished_abort{0}, rejected{0};
  std::atomic<std::int64_t> running{0}, waiting{0}, connections{0};
  std::atomic<std::uint64_t> prompt_tokens{0}, generation_tokens{0}, steps{0}, engine_restarts{0};
  std::atomic<std::uint64_t> step_micros{0};  // wall time inside the engine's step calls
  Histogram ttft, inter_token, e2e;
};

// The Prometheus text exposition of `m`, every series labelled with model_name.
std::string prometheus_text(const Metrics& m, const std::string& model_name);

}  // namespace kforge::serve
