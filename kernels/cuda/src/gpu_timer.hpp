#pragma once
// Timing one kernel launch the way nvbench does it cold: on the harness's own stream, CUDA events around the
// launch only, L2 flushed (and persisting lines reset) before every timed launch, warm-up launches first, and
// sampling that stops when the spread is small enough, at max_repeats, or at the time cap.
#include <functional>
#include <vector>

#include "device.hpp"
#include "kforge/jobs/manifest.hpp"

namespace kforge::kernels::cuda {

struct GpuTimingPolicy {
  int warmup = 1;
  int min_repeats = 3;
  int max_repeats = 20;
  double target_spread = 0.05;  // (max - min) / median, as the evaluation record reports it
  double time_cap_s = 2.0;
  static GpuTimingPolicy from(const jobs::EvalSettings& s);
};

// Overwrites a buffer larger than L2 (max of 2 x L2 and 256 MiB, as Triton's do_bench) before a timed launch.
class L2Flusher {
 public:
  explicit L2Flusher(const DeviceSession& session);
  void enqueue(CUstream stream);

 private:
  const DriverApi& api_;
  DeviceBuffer buffer_;
  unsigned char value_ = 0;
};

// `prepare` enqueues what must precede each launch outside the timed region (poisoning outputs, the flush);
// `launch` enqueues the kernel. Both on session.stream(). Returns every sample in milliseconds.
std::vector<double> time_launches(const DeviceSession& session, const GpuTimingPolicy& policy,
                                  const std::function<void()>& prepare, const std::function<void()>& launch);

double median_ms(std::vector<double> samples);  // jobs::median, but 0 for no samples
double spread_rel(const std::vector<double>& samples);

}  // namespace kforge::kernels::cuda
