#include "report_engine.hpp"

#include <cstdio>
#include <ostream>
#include <string>
#include <string_view>

namespace kforge::scheduler {
namespace {

constexpr std::string_view kSharePrefix = "op_share.";

bool is_share(const jobs::Metric& m) { return m.name.starts_with(kSharePrefix); }
std::string operator_of(const jobs::Metric& m) { return m.name.substr(kSharePrefix.size()); }

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

}  // namespace

void write_engine_table(std::ostream& out, const jobs::EvalRecord& best) {
  if (best.metrics.empty()) return;
  out << "  serving (the workload trace; an engine's time is ms per output token, 1000 / output_tokens_per_s):\n";
  for (const auto& m : best.metrics)
    if (!is_share(m)) out << "    " << m.name << " " << number(m.value) << " " << m.unit << "\n";
  std::string shares;
  for (const auto& m : best.metrics)
    if (is_share(m)) shares += "  " + operator_of(m) + " " + number(100.0 * m.value) + "%";
  if (!shares.empty()) out << "  where the time goes (reported by the engine):" << shares << "\n";
}

void write_engine_json(jobs::JsonWriter& w, const jobs::EvalRecord* best) {
  w.key("engine");
  if (best == nullptr || best->metrics.empty()) {
    w.value(jobs::kNaN);  // null: not an engine campaign, or nothing ok yet
    return;
  }
  w.begin_object().field("id", best->candidate_id).field("time_is", "ms per output token");
  w.key("serving").begin_object();
  for (const auto& m : best->metrics) {
    if (is_share(m)) continue;
    w.key(m.name).begin_object().field("value", m.value).field("unit", m.unit).end_object();
  }
  w.end_object().key("breakdown").begin_object();
  for (const auto& m : best->metrics)
    if (is_share(m)) w.field(operator_of(m), m.value);
  w.end_object().end_object();
}

}  // namespace kforge::scheduler
