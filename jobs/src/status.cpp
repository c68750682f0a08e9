// Status names: the strings written to manifests, archives and logs.
#include "kforge/jobs/status.hpp"

namespace kforge::jobs {

std::string_view to_string(Status s) {
  switch (s) {
    case Status::ok:
      return "ok";
    case Status::compile_error:
      return "compile_error";
    case Status::resource_reject:
      return "resource_reject";
    case Status::wrong_result:
      return "wrong_result";
    case Status::crash:
      return "crash";
    case Status::timeout:
      return "timeout";
    case Status::cheat_detected:
      return "cheat_detected";
    case Status::infra_error:
      return "infra_error";
    case Status::slo_missed:
      return "slo_missed";
  }
  return "unknown";  // only reachable through a cast of an out-of-range integer
}

std::optional<Status> status_from_string(std::string_view text) {
  for (Status s : kAllStatuses) {
    if (to_string(s) == text) return s;
  }
  return std::nullopt;
}

}  // namespace kforge::jobs
