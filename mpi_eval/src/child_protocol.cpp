#include "child_protocol.hpp"

#include <stdexcept>

#include "kv_text.hpp"

namespace kforge::mpi_eval {
namespace {

constexpr std::string_view kHeader = "kforge-child-report 1";

jobs::Status status_of(const KvReader& in, std::string_view key) {
  const std::string text = in.text(key);
  const auto s = jobs::status_from_string(text);
  if (!s) throw std::invalid_argument("unknown status '" + text + "' (key '" + std::string(key) + "')");
  return *s;
}

}  // namespace

std::string encode_child_report(const ChildReport& r) {
  KvWriter out(kHeader);
  out.put("verify.status", jobs::to_string(r.verify.status))
      .put("verify.max_abs_error", r.verify.max_abs_error)
      .put("verify.max_rel_error", r.verify.max_rel_error)
      .put("verify.evidence", r.verify.evidence)
      .put("verify.failed_case", r.verify.failed_case)
      .put("timed", std::int64_t{r.time.has_value()});
  if (r.time) {
    out.put("time.status", jobs::to_string(r.time->status))
        .put("time.samples_ms", doubles_text(r.time->samples_ms))
        .put("time.evidence", r.time->evidence);
    put_metrics(out, "time.metrics", r.time->metrics);
  }
  return out.str();
}

ChildReport decode_child_report(std::string_view text) {
  const KvReader in(text, kHeader);
  ChildReport r;
  r.verify.status = status_of(in, "verify.status");
  r.verify.max_abs_error = in.real("verify.max_abs_error");
  r.verify.max_rel_error = in.real("verify.max_rel_error");
  r.verify.evidence = in.text("verify.evidence");
  r.verify.failed_case = in.text("verify.failed_case");
  if (in.integer("timed") != 0) {
    kernels::TimeResult t;
    t.status = status_of(in, "time.status");
    t.samples_ms = parse_doubles(in.text("time.samples_ms"), "time.samples_ms");
    t.evidence = in.text("time.evidence");
    t.metrics = get_metrics(in, "time.metrics");
    r.time = std::move(t);
  }
  return r;
}

}  // namespace kforge::mpi_eval
