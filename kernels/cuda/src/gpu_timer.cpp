#include "gpu_timer.hpp"

#include <algorithm>
#include <chrono>

#include "checked_call.hpp"
#include "kforge/jobs/statistics.hpp"

namespace kforge::kernels::cuda {
namespace {

constexpr std::size_t kMinFlushBytes = std::size_t{256} << 20;

class Event {
 public:
  explicit Event(const DriverApi& api) : api_(api) { KFORGE_CU_CHECK(api_.cuEventCreate(&event_, CU_EVENT_DEFAULT)); }
  ~Event() { api_.cuEventDestroy(event_); }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  CUevent get() const { return event_; }

 private:
  const DriverApi& api_;
  CUevent event_ = nullptr;
};

}  // namespace

GpuTimingPolicy GpuTimingPolicy::from(const jobs::EvalSettings& s) {
  GpuTimingPolicy p;
  p.warmup = std::max(0, s.warmup);
  p.min_repeats = std::max(1, s.min_repeats);
  p.max_repeats = std::max(p.min_repeats, s.max_repeats);
  p.target_spread = s.target_spread;
  p.time_cap_s = s.time_cap_s;
  return p;
}

L2Flusher::L2Flusher(const DeviceSession& session)
    : api_(session.api()),
      buffer_(session.api(), std::max(kMinFlushBytes, 2 * static_cast<std::size_t>(
                                                              session.attribute(CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)))) {}

void L2Flusher::enqueue(CUstream stream) {
  // A persisting-L2 access window would survive a plain memset (llm.c PR 851): reset those lines first.
  KFORGE_CU_CHECK(api_.cuCtxResetPersistingL2Cache());
  KFORGE_CU_CHECK(api_.cuMemsetD8Async(static_cast<CUdeviceptr>(buffer_.address()), ++value_, buffer_.size(), stream));
}

std::vector<double> time_launches(const DeviceSession& session, const GpuTimingPolicy& policy,
                                  const std::function<void()>& prepare, const std::function<void()>& launch) {
  const DriverApi& api = session.api();
  const CUstream stream = session.stream();
  for (int w = 0; w < policy.warmup; ++w) {
    prepare();
    launch();
  }
  KFORGE_CU_CHECK(api.cuStreamSynchronize(stream));

  Event start(api), stop(api);
  std::vector<double> samples;
  const auto begun = std::chrono::steady_clock::now();
  while (static_cast<int>(samples.size()) < policy.max_repeats) {
    prepare();
    KFORGE_CU_CHECK(api.cuEventRecord(start.get(), stream));
    launch();
    KFORGE_CU_CHECK(api.cuEventRecord(stop.get(), stream));
    KFORGE_CU_CHECK(api.cuEventSynchronize(stop.get()));
    float ms = 0.f;
    KFORGE_CU_CHECK(api.cuEventElapsedTime(&ms, start.get(), stop.get()));
    samples.push_back(ms);
    const bool enough = static_cast<int>(samples.size()) >= policy.min_repeats;
    if (enough && spread_rel(samples) < policy.target_spread) break;
    if (std::chrono::duration<double>(std::chrono::steady_clock::now() - begun).count() > policy.time_cap_s) break;
  }
  return samples;
}

double median_ms(std::vector<double> samples) { return samples.empty() ? 0.0 : jobs::median(std::move(samples)); }

double spread_rel(const std::vector<double>& samples) {
  if (samples.size() < 2) return 0.0;
  const auto [lo, hi] = std::minmax_element(samples.begin(), samples.end());
  const double med = median_ms(samples);
  return med > 0 ? (*hi - *lo) / med : 0.0;
}

}  // namespace kforge::kernels::cuda
