#pragma once
// Continuous batching for kforge serve (docs/serving.md, "Batching"): requests from every connection share the
// engine's slots; each step holds up to the genome's max_batch sequences, prompts fed in prefill_chunk pieces,
// the genome's schedule deciding whether decodes or prefills go first (the same choice as the campaigns' serving
// loop, kforge/engine/serving_loop.hpp). One thread runs the engine; sessions submit jobs and get events back.
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "kforge/engine/serving_loop.hpp"
#include "kforge/serve/metrics.hpp"
#include "kforge/serve/sampling.hpp"

namespace kforge::serve {

// What a job hears from the batcher: a generated token, and with the last one (or alone, on failure) why it ended.
struct JobEvent {
  std::int32_t token = -1;  // -1: no token in this event
  std::string finish;       // "" = more to come; "length", "stop", or "abort" (with `error`)
  std::string error;
};

struct Job {
  std::vector<std::int32_t> prompt;
  std::int64_t max_tokens = 16;
  SamplingParams sampling;
  std::uint64_t seed = 0;
  std::vector<std::int32_t> stop_tokens;  // a generated token in this list ends the job ("stop"), itself included
  // Called on the batcher's thread with each step's events for this job; it must not block (sessions post them to
  // their own thread).
  std::function<void(std::vector<JobEvent>)> deliver;
  std::atomic<bool> cancelled{false};  // set by the session when its client goes away: the slot is freed
  std::chrono::steady_clock::time_point arrived = std::chrono::steady_clock::now();
};

struct BatcherLimits {
  std::int64_t slots = 1;        // sequences alive in the engine at once
  std::int64_t max_queue = 64;   // jobs waiting for a slot; beyond that submit() refuses
  std::int64_t max_context = 1;  // prompt + output positions per sequence, as the engine was sized
};

class Batcher {
 public:
  // `fresh_engine` starts an engine (a new candidate process, initialised) and returns its step function: once at
  // run(), and again after a step fails (the jobs in flight end with "abort").
  using FreshEngine = std::function<kernels::engine::StepFn()>;
  Batcher(FreshEngine fresh_engine, kernels::engine::BatchPolicy policy, std::int64_t vocab, BatcherLimits limits,
          Metrics& metrics);

  enum class Admission { accepted, queue_full, stopped };
  Admission submit(std::shared_ptr<Job> job);
  void run();   // serves until stop(); jobs still queued or in flight then end with "abort"
  void stop();  // thread-safe
  bool healthy() const { return healthy_.load(); }
  const BatcherLimits& limits() const { return limits_; }

 private:
  struct Flight;
  void fail(std::vector<Flight>& flights, const std::string& why);
  bool step_once(std::vector<Flight>& flights, const kernels::engine::StepFn& step);

  FreshEngine fresh_engine_;
  kernels::engine::BatchPolicy policy_;
  std::int64_t vocab_;
  BatcherLimits limits_;
  Metrics& metrics_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::shared_ptr<Job>> queue_;
  bool stopping_ = false;
  std::atomic<bool> healthy_{true};
  std::vector<bool> slot_busy_;
};

}  // namespace kforge::serve
