// `kforge export DIR --best`: everything needed to rebuild and rerun the best kernel outside kforge (docs/cli.md).
#include "kforge/scheduler/report/export.hpp"

#include <yaml-cpp/yaml.h>

#include <array>
#include <cstdio>
#include <memory>
#include <ostream>

#include "export_driver.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/text_file.hpp"
#include "kforge/scheduler/report/report.hpp"
#include "record_manifest.hpp"

namespace kforge::scheduler {
namespace fs = std::filesystem;

namespace {

constexpr int kRoundTripDigits = 17;  // %.17g: every double reads back as the same double

std::string source_extension(const std::string& backend) { return backend == "cuda" ? ".cu" : ".cpp"; }

// First line of `COMPILER --version` on this machine (the records do not store the version they were built with).
std::string compiler_version(const std::string& compiler) {
  const std::string command = compiler + " --version 2>/dev/null";
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(command.c_str(), "r"), ::pclose);
  if (!pipe) return "";
  std::array<char, 256> line{};
  if (!std::fgets(line.data(), line.size(), pipe.get())) return "";
  std::string out = line.data();
  while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
  return out;
}

std::string shell_words(const std::vector<std::string>& words) {
  std::string out;
  for (const auto& w : words) out += (out.empty() ? "" : " ") + w;
  return out;
}

struct BuildFacts {
  std::optional<jobs::TaskManifest> manifest;
  std::string compile_command;  // the host backend's command, with the exported file names; "" for others
  std::string version;
};

BuildFacts build_facts(const CampaignDir& dir, const jobs::EvalRecord& b, const jobs::Candidate* c) {
  BuildFacts f;
  f.manifest = manifest_of(dir, b);
  if (!f.manifest) return f;
  const auto& s = f.manifest->settings;
  if (b.backend == "host") {
    f.compile_command = shell_words({s.compiler, s.compile_flags, c ? c->compile_flags : "", "-std=c++17", "-shared",
                                     "-fPIC", "-o", b.candidate_id + ".so", b.candidate_id + ".cpp"});
    f.version = compiler_version(s.compiler);
  }
  return f;
}

void write_measured(YAML::Emitter& y, const CampaignReport& r) {
  const jobs::EvalRecord& b = *r.best;
  y << YAML::Key << "measured" << YAML::Value << YAML::BeginMap;
  y << YAML::Key << "time_median_ms" << YAML::Value << b.time_median_ms;
  y << YAML::Key << "time_min_ms" << YAML::Value << b.time_min_ms;
  y << YAML::Key << "time_spread_rel" << YAML::Value << b.time_spread_rel;
  y << YAML::Key << "time_spread_iqr" << YAML::Value << b.time_spread_iqr;
  y << YAML::Key << "sample_count" << YAML::Value << b.sample_count;
  y << YAML::Key << "samples_ms" << YAML::Value << YAML::Flow << b.samples_ms;
  y << YAML::Key << "timing_noisy" << YAML::Value << b.timing_noisy;
  y << YAML::Key << "max_abs_error" << YAML::Value << b.max_abs_error;
  y << YAML::Key << "max_rel_error" << YAML::Value << b.max_rel_error;
  y << YAML::Key << "compile_ms" << YAML::Value << b.compile_ms;
  y << YAML::Key << "registers" << YAML::Value << b.registers << YAML::Key << "spill_bytes" << YAML::Value
    << b.spill_bytes << YAML::Key << "shared_bytes" << YAML::Value << b.shared_bytes;
  y << YAML::Key << "host" << YAML::Value << b.host << YAML::Key << "gpu_model" << YAML::Value << b.gpu_model;
  y << YAML::Key << "evaluated_at" << YAML::Value << b.evaluated_at;
  // Paired (docs/archive-schema.md, "Speedups"): the baselines timed in the same task as the candidate.
  y << YAML::Key << "baseline_time_ms_same_task" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, ms] : r.best_task_baseline_ms) y << YAML::Key << name << YAML::Value << ms;
  y << YAML::EndMap << YAML::Key << "speedups" << YAML::Value << YAML::BeginMap;
  for (const auto& [name, s] : r.best_speedups) y << YAML::Key << name << YAML::Value << s;
  y << YAML::EndMap << YAML::EndMap;
}

std::string describe_best(const CampaignReport& r, const BuildFacts& f, bool with_source) {
  const jobs::EvalRecord& b = *r.best;
  YAML::Emitter y;
  y.SetDoublePrecision(kRoundTripDigits);
  y << YAML::BeginMap;
  y << YAML::Key << "campaign" << YAML::Value << r.campaign;
  y << YAML::Key << "id" << YAML::Value << b.candidate_id;
  y << YAML::Key << "family" << YAML::Value << b.family << YAML::Key << "backend" << YAML::Value << b.backend;
  y << YAML::Key << "target" << YAML::Value << b.target;
  y << YAML::Key << "generation" << YAML::Value << b.generation << YAML::Key << "island" << YAML::Value << b.island;
  y << YAML::Key << "op" << YAML::Value << b.op;
  y << YAML::Key << "params" << YAML::Value << b.params;
  y << YAML::Key << "build" << YAML::Value << YAML::BeginMap;
  if (f.manifest) {
    const auto& s = f.manifest->settings;
    y << YAML::Key << "problem" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [k, v] : s.problem) y << YAML::Key << k << YAML::Value << v;
    y << YAML::EndMap;
    y << YAML::Key << "compiler" << YAML::Value << s.compiler;
    y << YAML::Key << "compile_flags" << YAML::Value << s.compile_flags;
    y << YAML::Key << "compile_command" << YAML::Value << f.compile_command;
    y << YAML::Key << "compiler_version_at_export" << YAML::Value << f.version;
    y << YAML::Key << "seed" << YAML::Value << std::to_string(f.manifest->seed);
  } else {
    y << YAML::Key << "note" << YAML::Value << "the task manifest that evaluated it is gone: no build facts";
  }
  y << YAML::EndMap;
  write_measured(y, r);
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

std::string build_script(const BuildFacts& f) {
  return "#!/bin/sh\n# Rebuilds the exported kernel as kforge's host backend did (see the .yaml's build section).\n"
         "set -eu\ncd \"$(dirname \"$0\")\"\n" +
         f.compile_command + "\n";
}

}  // namespace

void export_best(const CampaignDir& dir, const std::optional<fs::path>& to, std::ostream& out) {
  CampaignReport r = build_report(dir);
  if (!r.best) throw std::runtime_error(dir.root().string() + ": no candidate has been evaluated ok yet");
  const ArchiveView archive = ArchiveView::load(dir);
  const BuildFacts facts = build_facts(dir, *r.best, archive.candidate(r.best->candidate_id));
  if (!to) {
    out << describe_best(r, facts, true);
    return;
  }
  fs::create_directories(*to);
  const std::string id = r.best->candidate_id;
  const fs::path source = *to / (id + source_extension(r.best->backend));
  const fs::path meta = *to / (id + ".yaml");
  jobs::write_text_file_atomically(source, r.best->source);
  jobs::write_text_file_atomically(meta, describe_best(r, facts, false));
  out << source.string() << "\n" << meta.string() << "\n";
  if (!facts.compile_command.empty()) {
    const fs::path script = *to / "build.sh";
    jobs::write_text_file_atomically(script, build_script(facts));
    fs::permissions(script, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                    fs::perm_options::add);
    out << script.string() << "\n";
    const std::string driver = rerun_driver_source(r.best->backend, r.best->family);
    if (!driver.empty() && facts.manifest) {
      jobs::write_text_file_atomically(*to / "run.cpp", driver);
      const fs::path run = *to / "run.sh";
      jobs::write_text_file_atomically(
          run, rerun_script(facts.manifest->settings.compiler, id, facts.manifest->settings.problem));
      fs::permissions(run, fs::perms::owner_exec | fs::perms::group_exec | fs::perms::others_exec,
                      fs::perm_options::add);
      out << (*to / "run.cpp").string() << "\n" << run.string() << "\n";
    }
  }
}

}  // namespace kforge::scheduler
