// ReplayBackend: see replay_backend.hpp for how measured outcomes map to evaluation statuses.
#include "kforge/kernels/replay_backend.hpp"

#include <map>
#include <mutex>
#include <stdexcept>

namespace kforge::kernels::replay {

std::shared_ptr<const ReplaySpace> shared_space(const std::string& cache_path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const ReplaySpace>> spaces;
  const std::lock_guard<std::mutex> lock(mutex);
  auto& slot = spaces[cache_path];
  if (!slot) slot = std::make_shared<const ReplaySpace>(ReplaySpace::load(cache_path));
  return slot;
}

std::string ReplayBackend::render(const jobs::Candidate& c) const {
  return c.source.empty() ? c.genome.to_text() : c.source;
}

CompileResult ReplayBackend::compile(const std::string&, const jobs::Candidate& c, const EvalContext& ctx) {
  CompileResult r;
  compiled_ = false;
  if (ctx.settings == nullptr || ctx.settings->replay_cache.empty()) {
    r.log = "replay backend: the task manifest's settings.replay_cache is empty; set it to a Kernel Tuner cache file";
    return r;
  }
  try {
    space_ = shared_space(ctx.settings->replay_cache);
  } catch (const std::exception& e) {
    r.log = e.what();
    return r;
  }
  current_ = space_->lookup(c.genome);
  current_text_ = c.genome.to_text();
  const std::string where = " in " + space_->path().string();
  switch (current_.outcome) {
    case ReplayOutcome::not_in_space:
      r.status = jobs::Status::resource_reject;
      r.log = "configuration " + current_text_ + " is not in the measured space" + where +
              " (it violates the space's constraints or uses a value outside its lists)";
      return r;
    case ReplayOutcome::compile_failed:
      r.status = jobs::Status::compile_error;
      r.log = "configuration " + current_text_ + " failed to compile when measured" + where + ": " +
              current_.entry->failure;
      return r;
    default:
      break;
  }
  r.ok = true;
  r.status = jobs::Status::ok;
  r.log = "replayed from" + where + " (" + space_->device_name() + ")";
  compiled_ = true;
  return r;
}

void ReplayBackend::load(const CompileResult& compiled) {
  if (!compiled.ok || !compiled_) throw std::runtime_error("replay backend: load() without a successful compile()");
}

VerifyResult ReplayBackend::verify(const EvalContext&) {
  VerifyResult v;
  if (!compiled_ || current_.entry == nullptr) {
    v.status = jobs::Status::crash;
    v.evidence = "replay backend: verify() without a configuration from the measured space";
    return v;
  }
  if (current_.outcome != ReplayOutcome::measured) {
    v.status = current_.outcome == ReplayOutcome::compile_failed ? jobs::Status::compile_error : jobs::Status::crash;
    v.evidence = "configuration " + current_text_ + " failed when measured on " + space_->device_name() + ": " +
                 current_.entry->failure;
    return v;
  }
  // The measured kernels were checked by Kernel Tuner when the space was brute-forced; nothing is recomputed.
  v.status = jobs::Status::ok;
  v.max_abs_error = 0.0;
  v.max_rel_error = 0.0;
  v.evidence = "replayed measurement; correctness was checked when the space was measured";
  return v;
}

TimeResult ReplayBackend::time(const EvalContext&) {
  TimeResult t;
  if (!compiled_ || current_.outcome != ReplayOutcome::measured) {
    t.status = jobs::Status::crash;
    t.evidence = "replay backend: time() for a configuration without a measured time";
    return t;
  }
  t.samples_ms = current_.entry->samples_ms;
  if (t.samples_ms.empty()) t.samples_ms.push_back(current_.time_ms);  // caches without "times" keep the mean
  t.evidence = "replayed " + std::to_string(t.samples_ms.size()) + " samples measured on " + space_->device_name();
  return t;
}

std::vector<jobs::Baseline> ReplayBackend::time_baselines(const EvalContext&) { return {}; }

}  // namespace kforge::kernels::replay
