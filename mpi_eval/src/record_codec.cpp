#include "record_codec.hpp"

#include <stdexcept>

#include "kv_text.hpp"

namespace kforge::mpi_eval {
namespace {

constexpr std::string_view kRecordHeader = "kforge-record 1";
constexpr std::string_view kBaselinesHeader = "kforge-baselines 1";

std::string join_ids(const std::vector<std::string>& ids) {
  std::string out;
  for (std::size_t i = 0; i < ids.size(); ++i) out += (i ? "," : "") + ids[i];
  return out;
}

std::vector<std::string> split_ids(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    out.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

std::int32_t narrow(std::int64_t v, std::string_view key) {
  if (v < INT32_MIN || v > INT32_MAX) throw std::invalid_argument("out of range (key '" + std::string(key) + "')");
  return static_cast<std::int32_t>(v);
}

void put_lineage(KvWriter& out, const jobs::EvalRecord& r) {
  out.put("candidate_id", r.candidate_id)
      .put("family", r.family)
      .put("backend", r.backend)
      .put("params", r.params)
      .put("parents", join_ids(r.parents))
      .put("op", r.op)
      .put("generation", std::int64_t{r.generation})
      .put("island", std::int64_t{r.island})
      .put("target", r.target)
      .put("status", jobs::to_string(r.status));
}

void put_measures(KvWriter& out, const jobs::EvalRecord& r) {
  out.put("time_median_ms", r.time_median_ms)
      .put("time_min_ms", r.time_min_ms)
      .put("time_spread_rel", r.time_spread_rel)
      .put("time_spread_iqr", r.time_spread_iqr)
      .put("sample_count", std::int64_t{r.sample_count})
      .put("timing_noisy", std::int64_t{r.timing_noisy ? 1 : 0})
      .put("samples_ms", doubles_text(r.samples_ms))
      .put("speedup", r.speedup)
      .put("max_abs_error", r.max_abs_error)
      .put("max_rel_error", r.max_rel_error)
      .put("compile_ms", r.compile_ms)
      .put("registers", std::int64_t{r.registers})
      .put("shared_bytes", r.shared_bytes)
      .put("spill_bytes", r.spill_bytes);
  put_metrics(out, "metrics", r.metrics);
}

void put_place(KvWriter& out, const jobs::EvalRecord& r) {
  out.put("host", r.host)
      .put("gpu_model", r.gpu_model)
      .put("slurm_job_id", r.slurm_job_id)
      .put("slurm_array_task", std::int64_t{r.slurm_array_task})
      .put("rank", std::int64_t{r.rank})
      .put("evaluated_at", r.evaluated_at)
      .put("harness_ms", r.harness_ms)
      .put("evidence", r.evidence)
      .put("failed_case", r.failed_case)
      .put("source", r.source)
      .put("ptx", r.ptx);
}

void get_lineage(const KvReader& in, jobs::EvalRecord& r) {
  r.candidate_id = in.text("candidate_id");
  r.family = in.text("family");
  r.backend = in.text("backend");
  r.params = in.text("params");
  r.parents = split_ids(in.text("parents"));
  r.op = in.text("op");
  r.generation = narrow(in.integer("generation"), "generation");
  r.island = narrow(in.integer("island"), "island");
  r.target = in.text("target");
  const std::string status = in.text("status");
  const auto s = jobs::status_from_string(status);
  if (!s) throw std::invalid_argument("unknown status '" + status + "' (key 'status')");
  r.status = *s;
}

void get_measures(const KvReader& in, jobs::EvalRecord& r) {
  r.time_median_ms = in.real("time_median_ms");
  r.time_min_ms = in.real("time_min_ms");
  r.time_spread_rel = in.real("time_spread_rel");
  r.time_spread_iqr = in.real("time_spread_iqr");
  r.sample_count = narrow(in.integer("sample_count"), "sample_count");
  r.timing_noisy = in.integer("timing_noisy") != 0;
  r.samples_ms = parse_doubles(in.text("samples_ms"), "samples_ms");
  r.speedup = in.real("speedup");
  r.max_abs_error = in.real("max_abs_error");
  r.max_rel_error = in.real("max_rel_error");
  r.compile_ms = in.real("compile_ms");
  r.registers = narrow(in.integer("registers"), "registers");
  r.shared_bytes = in.integer("shared_bytes");
  r.spill_bytes = in.integer("spill_bytes");
  r.metrics = get_metrics(in, "metrics");
}

void get_place(const KvReader& in, jobs::EvalRecord& r) {
  r.host = in.text("host");
  r.gpu_model = in.text("gpu_model");
  r.slurm_job_id = in.integer("slurm_job_id");
  r.slurm_array_task = narrow(in.integer("slurm_array_task"), "slurm_array_task");
  r.rank = narrow(in.integer("rank"), "rank");
  r.evaluated_at = in.text("evaluated_at");
  r.harness_ms = in.real("harness_ms");
  r.evidence = in.text("evidence");
  r.failed_case = in.text("failed_case");
  r.source = in.text("source");
  r.ptx = in.text("ptx");
}

}  // namespace

std::string encode_record(const jobs::EvalRecord& r) {
  KvWriter out(kRecordHeader);
  put_lineage(out, r);
  put_measures(out, r);
  put_place(out, r);
  return out.str();
}

jobs::EvalRecord decode_record(std::string_view text) {
  const KvReader in(text, kRecordHeader);
  jobs::EvalRecord r;
  get_lineage(in, r);
  get_measures(in, r);
  get_place(in, r);
  return r;
}

std::string encode_baselines(const std::vector<jobs::Baseline>& b) {
  KvWriter out(kBaselinesHeader);
  out.put("count", static_cast<std::int64_t>(b.size()));
  for (std::size_t i = 0; i < b.size(); ++i) {
    const std::string p = "baseline." + std::to_string(i) + ".";
    out.put(p + "name", b[i].name)
        .put(p + "time_median_ms", b[i].time_median_ms)
        .put(p + "time_min_ms", b[i].time_min_ms)
        .put(p + "sample_count", std::int64_t{b[i].sample_count})
        .put(p + "host", b[i].host)
        .put(p + "task", std::int64_t{b[i].task});
  }
  return out.str();
}

std::vector<jobs::Baseline> decode_baselines(std::string_view text) {
  const KvReader in(text, kBaselinesHeader);
  const std::int64_t count = in.integer("count");
  if (count < 0 || count > 4096) throw std::invalid_argument("implausible baseline count (key 'count')");
  std::vector<jobs::Baseline> out(static_cast<std::size_t>(count));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::string p = "baseline." + std::to_string(i) + ".";
    out[i].name = in.text(p + "name");
    out[i].time_median_ms = in.real(p + "time_median_ms");
    out[i].time_min_ms = in.real(p + "time_min_ms");
    out[i].sample_count = narrow(in.integer(p + "sample_count"), p + "sample_count");
    out[i].host = in.text(p + "host");
    out[i].task = narrow(in.integer(p + "task"), p + "task");
  }
  return out;
}

}  // namespace kforge::mpi_eval
