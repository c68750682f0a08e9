#pragma once
// Outcome of one candidate's evaluation on one target (ARCHITECTURE.md, "Evaluation record").
#include <optional>
#include <string_view>

namespace kforge::jobs {

enum class Status : int {
  ok = 0,
  compile_error,
  resource_reject,
  wrong_result,
  crash,
  timeout,
  cheat_detected,
  infra_error,
  slo_missed,  // an engine served correctly but missed the workload's latency SLO (the objective is unmet)
};

inline constexpr Status kAllStatuses[] = {
    Status::ok,      Status::compile_error,  Status::resource_reject, Status::wrong_result, Status::crash,
    Status::timeout, Status::cheat_detected, Status::infra_error,     Status::slo_missed};

std::string_view to_string(Status s);
std::optional<Status> status_from_string(std::string_view text);

}  // namespace kforge::jobs
