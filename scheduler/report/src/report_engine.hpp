#pragma once
// The best engine's serving figures in `kforge report` (engine campaigns, docs/engines.md "Serving"): its
// jobs::Metric values split into serving figures and the per-operator breakdown ("op_share.NAME").
#include <iosfwd>

#include "kforge/jobs/json_text.hpp"
#include "kforge/jobs/record.hpp"

namespace kforge::scheduler {

// Nothing when the record carries no metrics (a kernel).
void write_engine_table(std::ostream& out, const jobs::EvalRecord& best);
// "engine": {"id": BEST, "time_is": "ms per output token", "serving": {NAME: {"value": V, "unit": U}, ...},
// "breakdown": {OPERATOR: share, ...}}, or null (a kernel campaign, or nothing ok yet).
void write_engine_json(jobs::JsonWriter& w, const jobs::EvalRecord* best);

}  // namespace kforge::scheduler
