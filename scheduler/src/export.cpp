#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/export.hpp"

#include <yaml-cpp/yaml.h>

#include <ostream>

#include "kforge/scheduler/report.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;

namespace {

std::string source_extension(const std::string& backend) { return backend == "cuda" ? ".cu" : ".cpp"; }

std::string describe_best(const CampaignReport& r, bool with_source) {
  const jobs::EvalRecord& b = *r.best;
  YAML::Emitter y;
  y << YAML::BeginMap;
  y << YAML::Key << "campaign" << YAML::Value << r.campaign;
  y << YAML::Key << "id" << YAML::Value << b.candidate_id;
  y << YAML::Key << "family" << YAML::Value << b.family << YAML::Key << "backend" << YAML::Value << b.backend;
  y << YAML::Key << "target" << YAML::Value << b.target;
  y << YAML::Key << "generation" << YAML::Value << b.generation << YAML::Key << "island" << YAML::Value << b.island;
  y << YAML::Key << "op" << YAML::Value << b.op;
  y << YAML::Key << "params" << YAML::Value << b.params;
  y << YAML::Key << "time_median_ms" << YAML::Value << b.time_median_ms;
  y << YAML::Key << "time_min_ms" << YAML::Value << b.time_min_ms;
  y << YAML::Key << "speedup_vs_reference" << YAML::Value << b.speedup;
  y << YAML::Key << "baseline_time_ms" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, ms] : r.baseline_ms) y << YAML::Key << name << YAML::Value << ms;
  y << YAML::EndMap;
  y << YAML::Key << "lineage" << YAML::Value << YAML::BeginSeq;
  for (const auto& a : r.lineage) {
    y << YAML::Flow << YAML::BeginMap << YAML::Key << "id" << YAML::Value << a.id << YAML::Key << "op" << YAML::Value
      << a.op << YAML::Key << "generation" << YAML::Value << a.generation << YAML::EndMap;
  }
  y << YAML::EndSeq;
  y << YAML::Key << "evidence" << YAML::Value << YAML::Literal << b.evidence;
  if (with_source) y << YAML::Key << "source" << YAML::Value << YAML::Literal << b.source;
  y << YAML::EndMap;
  return std::string(y.c_str()) + "\n";
}

}  // namespace

void export_best(const CampaignDir& dir, const std::optional<fs::path>& to, std::ostream& out) {
  CampaignReport r = build_report(dir);
  if (!r.best) throw std::runtime_error(dir.root().string() + ": no candidate has been evaluated ok yet");
  if (!to) {
    out << describe_best(r, true);
    return;
  }
  fs::create_directories(*to);
  const fs::path source = *to / (r.best->candidate_id + source_extension(r.best->backend));
  const fs::path meta = *to / (r.best->candidate_id + ".yaml");
  jobs::write_text_file_atomically(source, r.best->source);
  jobs::write_text_file_atomically(meta, describe_best(r, false));
  out << source.string() << "\n" << meta.string() << "\n";
}

}  // namespace kforge::scheduler
