#include "kforge/serve/batcher.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <utility>

namespace kforge::serve {

using Clock = std::chrono::steady_clock;
using kernels::engine::StepOutcome;
using kernels::engine::StepSequence;

struct Batcher::Flight {
  std::shared_ptr<Job> job;
  std::int64_t slot = 0;
  std::int64_t fed = 0;  // prompt tokens the engine has seen
  std::vector<std::int32_t> generated;
  TokenSampler sampler;
  Clock::time_point last_token{};
};

namespace {

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

}  // namespace

Batcher::Batcher(FreshEngine fresh_engine, kernels::engine::BatchPolicy policy, std::int64_t vocab,
                 BatcherLimits limits, Metrics& metrics)
    : fresh_engine_(std::move(fresh_engine)),
      policy_(policy),
      vocab_(vocab),
      limits_(limits),
      metrics_(metrics),
      slot_busy_(static_cast<std::size_t>(std::max<std::int64_t>(1, limits.slots)), false) {}

Batcher::Admission Batcher::submit(std::shared_ptr<Job> job) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_ || !healthy_) return Admission::stopped;
    // Jobs whose clients left while they waited count against nobody's queue.
    const auto gone = std::remove_if(queue_.begin(), queue_.end(), [](const auto& j) { return j->cancelled.load(); });
    metrics_.finished_abort += static_cast<std::uint64_t>(queue_.end() - gone);
    queue_.erase(gone, queue_.end());
    if (static_cast<std::int64_t>(queue_.size()) >= limits_.max_queue) return Admission::queue_full;
    job->arrived = Clock::now();
    queue_.push_back(std::move(job));
    metrics_.waiting = static_cast<std::int64_t>(queue_.size());
  }
  wake_.notify_one();
  return Admission::accepted;
}

void Batcher::stop() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
}

void Batcher::fail(std::vector<Flight>& flights, const std::string& why) {
  for (Flight& f : flights) {
    f.job->deliver({JobEvent{-1, "abort", why}});
    slot_busy_[static_cast<std::size_t>(f.slot)] = false;
    ++metrics_.finished_abort;
  }
  flights.clear();
  metrics_.running = 0;
}

// One step of the flights' chosen sequences; false when the engine failed (the flights are then aborted).
bool Batcher::step_once(std::vector<Flight>& flights, const kernels::engine::StepFn& step) {
  std::vector<bool> decoding(flights.size());
  for (std::size_t f = 0; f < flights.size(); ++f)
    decoding[f] = flights[f].fed == static_cast<std::int64_t>(flights[f].job->prompt.size());
  const std::vector<std::size_t> chosen = kernels::engine::choose_step(decoding, policy_);
  std::vector<StepSequence> seqs;
  std::vector<std::int32_t> tokens;
  for (const std::size_t f : chosen) {
    const Flight& fl = flights[f];
    kernels::engine::append_to_step(fl.slot, fl.job->prompt, fl.fed, fl.generated, policy_, seqs, tokens);
  }
  StepOutcome r;
  try {
    r = step(seqs, tokens, kernels::engine::RowWants{});  // whole rows: the request's sampler draws from them
  } catch (const std::exception& e) {
    fail(flights, std::string("the engine failed: ") + e.what());
    return false;
  }
  const auto rows = static_cast<std::size_t>(vocab_) * seqs.size();
  if (r.logits.size() != rows ||
      !std::all_of(r.logits.begin(), r.logits.end(), [](float x) { return std::isfinite(x); })) {
    fail(flights, "the engine returned logits that are missing or not finite");
    return false;
  }
  ++metrics_.steps;
  metrics_.step_micros += static_cast<std::uint64_t>(std::llround(std::max(0.0, r.ms) * 1e3));

  std::vector<std::size_t> finished;
  for (std::size_t s = 0; s < seqs.size(); ++s) {
    Flight& fl = flights[chosen[s]];
    const Job& job = *fl.job;
    const bool prefill = fl.fed < static_cast<std::int64_t>(job.prompt.size());
    if (prefill) {
      fl.fed += seqs[s].token_count;
      metrics_.prompt_tokens += static_cast<std::uint64_t>(seqs[s].token_count);
      if (fl.fed < static_cast<std::int64_t>(job.prompt.size())) continue;  // a chunk mid-prompt
    }
    const auto row = std::span<const float>(r.logits).subspan(s * static_cast<std::size_t>(vocab_),
                                                              static_cast<std::size_t>(vocab_));
    const std::int32_t token = fl.sampler.pick(row);
    fl.generated.push_back(token);
    ++metrics_.generation_tokens;
    (prefill ? metrics_.ttft.observe(seconds_since(job.arrived))
             : metrics_.inter_token.observe(seconds_since(fl.last_token)));
    fl.last_token = Clock::now();
    JobEvent ev{token, "", ""};
    const auto positions = static_cast<std::int64_t>(job.prompt.size() + fl.generated.size());
    if (std::find(job.stop_tokens.begin(), job.stop_tokens.end(), token) != job.stop_tokens.end()) {
      ev.finish = "stop";
      ++metrics_.finished_stop;
    } else if (static_cast<std::int64_t>(fl.generated.size()) >= job.max_tokens || positions >= limits_.max_context) {
      ev.finish = "length";
      ++metrics_.finished_length;
    }
    job.deliver({ev});
    if (!ev.finish.empty()) {
      metrics_.e2e.observe(seconds_since(job.arrived));
      finished.push_back(chosen[s]);
    }
  }
  std::sort(finished.rbegin(), finished.rend());
  for (const std::size_t f : finished) {
    slot_busy_[static_cast<std::size_t>(flights[f].slot)] = false;
    flights.erase(flights.begin() + static_cast<std::ptrdiff_t>(f));
  }
  return true;
}

void Batcher::run() {
  kernels::engine::StepFn step;
  try {
    step = fresh_engine_();
  } catch (const std::exception&) {
    healthy_ = false;
    throw;
  }
  std::vector<Flight> flights;  // in admission order
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty() || !flights.empty(); });
      if (stopping_) break;
      // Admit queued jobs into free slots (the lowest free slot first).
      while (!queue_.empty() && static_cast<std::int64_t>(flights.size()) < limits_.slots) {
        std::shared_ptr<Job> job = std::move(queue_.front());
        queue_.pop_front();
        const auto free = std::find(slot_busy_.begin(), slot_busy_.end(), false);
        *free = true;
        const SamplingParams sampling = job->sampling;
        const std::uint64_t seed = job->seed;
        flights.push_back(Flight{std::move(job), free - slot_busy_.begin(), 0, {}, TokenSampler(sampling, seed), {}});
      }
      metrics_.waiting = static_cast<std::int64_t>(queue_.size());
    }
    // A job whose client went away gives its slot back before the step.
    for (std::size_t f = flights.size(); f-- > 0;) {
      if (!flights[f].job->cancelled.load()) continue;
      slot_busy_[static_cast<std::size_t>(flights[f].slot)] = false;
      flights.erase(flights.begin() + static_cast<std::ptrdiff_t>(f));
      ++metrics_.finished_abort;
    }
    metrics_.running = static_cast<std::int64_t>(flights.size());
    if (flights.empty()) continue;
    if (step_once(flights, step)) {
      metrics_.running = static_cast<std::int64_t>(flights.size());
      continue;
    }
    try {  // a fresh engine: nothing of the failed one is reused
      step = {};
      step = fresh_engine_();
      ++metrics_.engine_restarts;
    } catch (const std::exception&) {
      healthy_ = false;
      break;
    }
  }
  std::deque<std::shared_ptr<Job>> left;
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
    left.swap(queue_);
  }
  const std::string why = healthy_ ? "the server is stopping" : "the engine failed and could not be started again";
  fail(flights, why);
  for (const auto& job : left) {
    job->deliver({JobEvent{-1, "abort", why}});
    ++metrics_.finished_abort;
  }
  metrics_.waiting = 0;
}

}  // namespace kforge::serve
