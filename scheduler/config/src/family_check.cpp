// check_campaign_against_family: a campaign checked against the schema of the family that will evaluate it
// (kforge/kernels/family_schema.hpp), so that what validates also runs (docs/campaign-schema.md, "Families").
#include <cmath>
#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include "kforge/kernels/family_schema.hpp"
#include "kforge/scheduler/config/family_check.hpp"
#include "yaml_reader.hpp"

namespace kforge::scheduler {
namespace {

using kernels::FamilySchema;
using kernels::ParameterSchema;

[[noreturn]] void fail(const CampaignConfig& c, const std::string& key, std::string problem, std::string allowed) {
  throw ConfigError(c.location_of(key), key, std::move(problem), std::move(allowed));
}

std::string bytes_text(double bytes) {
  char text[64];
  if (bytes >= 1024.0 * 1024 * 1024)
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / (1024.0 * 1024 * 1024));
  else
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / (1024.0 * 1024));
  return text;
}

const FamilySchema& schema_of(const CampaignConfig& c) {
  const FamilySchema* schema = kernels::find_family_schema(c.backend, c.family);
  if (schema == nullptr)
    fail(c, "campaign.family", "backend " + c.backend + " has no family '" + c.family + "'",
         "families of backend " + c.backend + ": " + kernels::families_of(c.backend) +
             "; known backend/family pairs: " + kernels::known_family_pairs());
  return *schema;
}

std::string target_names(const FamilySchema& s) {
  std::string out;
  for (const auto& t : s.targets) out += (out.empty() ? "" : ", ") + t.name + " (" + t.note + ")";
  return out;
}

void check_targets(const CampaignConfig& c, const SiteConfig& site, const FamilySchema& s) {
  for (std::size_t i = 0; i < c.targets.size(); ++i) {
    const std::string& target = c.targets[i];
    const std::string key = "campaign.targets[" + std::to_string(i) + "]";
    if (s.targets.empty()) {  // any label, except hardware this backend cannot evaluate
      bool refused = false;
      for (const auto& name : s.refused_targets) refused = refused || name == target;
      // On a Slurm site a target names a partition: the host backend runs on the CPUs of its nodes.
      if (refused && site.executor != "slurm")
        fail(c, key,
             "backend " + s.backend + " cannot evaluate target '" + target + "' (a GPU) on the " + site.executor +
                 " executor of site " + site.name,
             "a target that is not a GPU target (host, or any island label); GPU targets with backend cuda, or "
             "on a Slurm site that maps the name to a partition");
      continue;
    }
    if (s.target(target) == nullptr)
      fail(c, key, "backend " + s.backend + " cannot evaluate target '" + target + "'",
           "targets of " + s.pair() + ": " + target_names(s));
  }
}

// "16.5", "'jpi'", "7": a value as the file shows it, for messages.
std::string value_text(const jobs::ParamValue& v) {
  if (const auto* s = std::get_if<std::string>(&v)) return "'" + *s + "'";
  return jobs::to_text(v);
}

std::string problem_with_value(const ParameterSchema& p, const jobs::ParamValue& v) {
  if (p.type == ParameterSchema::Type::string) {
    const auto* s = std::get_if<std::string>(&v);
    if (s == nullptr) return "expected a string, got " + value_text(v);
    for (const auto& choice : p.string_choices)
      if (*s == choice) return "";
    return value_text(v) + " is not a value of the template";
  }
  const auto* i = std::get_if<std::int64_t>(&v);
  if (i == nullptr) return "expected an integer, got " + value_text(v);
  if (!p.int_choices.empty()) {
    for (auto choice : p.int_choices)
      if (*i == choice) return "";
    return value_text(v) + " is not a value of the template";
  }
  if (*i < p.min || *i > p.max) return value_text(v) + " is out of range";
  return "";
}

void check_parameters(const CampaignConfig& c, const FamilySchema& s) {
  if (s.parameters_from_cache) return;  // replay: evaluation.replay_cache defines them
  std::string all, missing;
  for (const auto& p : s.parameters) {
    all += (all.empty() ? "" : "; ") + p.name + ": " + p.allowed();
    bool present = false;
    for (const auto& spec : c.space.parameters) present = present || spec.name == p.name;
    if (!present && !p.optional()) missing += (missing.empty() ? "" : ", ") + p.name;
  }
  if (!missing.empty())
    fail(c, "space.parameters", s.pair() + " needs parameter(s) " + missing + " that the space does not list",
         "the parameters of " + s.pair() + ": " + all);
  for (const auto& spec : c.space.parameters) {
    const ParameterSchema* p = s.parameter(spec.name);
    const std::string key = "space.parameters." + spec.name;
    if (p == nullptr)
      fail(c, key, s.pair() + " has no parameter " + spec.name, "the parameters of " + s.pair() + ": " + all);
    for (std::size_t i = 0; i < spec.values.size(); ++i) {
      const std::string problem = problem_with_value(*p, spec.values[i]);
      if (!problem.empty()) fail(c, key + "[" + std::to_string(i) + "]", problem, spec.name + ": " + p->allowed());
    }
  }
}

void check_problem(const CampaignConfig& c, const FamilySchema& s) {
  std::string keys;
  for (const auto& k : s.problem) keys += (keys.empty() ? "" : "; ") + k.name + ": " + k.allowed();
  for (const auto& [name, size] : c.eval.problem) {
    const std::string key = "evaluation.problem." + name;
    const auto* k = s.problem_key(name);
    if (k == nullptr)
      fail(c, key, s.pair() + " has no problem key " + name,
           keys.empty() ? s.pair() + " takes no problem keys (evaluation.problem: {})"
                        : "problem keys of " + s.pair() + ": " + keys);
    if (size < k->min || size > k->max || size % k->multiple_of != 0)
      fail(c, key, std::to_string(size) + " is out of range", name + ": " + k->allowed());
  }
  const kernels::ProblemSizes sizes = s.problem_with_defaults(c.eval.problem);
  if (s.problem_rule) {
    if (const auto why = s.problem_rule(sizes))
      fail(c, "evaluation.problem", *why, "problem keys of " + s.pair() + ": " + keys);
  }
}

std::string sizes_text(const kernels::ProblemSizes& sizes) {
  std::string out;
  for (const auto& [name, size] : sizes) out += (out.empty() ? "" : " ") + name + "=" + std::to_string(size);
  return out;
}

void check_memory(const CampaignConfig& c, const FamilySchema& s) {
  if (!s.problem_bytes || s.memory == kernels::MemoryBudget::none) return;
  const kernels::ProblemSizes sizes = s.problem_with_defaults(c.eval.problem);
  const double need = s.problem_bytes(sizes);
  if (s.memory == kernels::MemoryBudget::sandbox_limit) {
    const double limit = static_cast<double>(c.eval.memory_limit_mb) * 1024.0 * 1024.0;
    if (need > limit)
      fail(c, c.eval.problem.empty() ? "evaluation.memory_limit_mb" : "evaluation.problem",
           "the problem " + sizes_text(sizes) + " needs at least " + bytes_text(need) + " of buffers, more than " +
               "evaluation.memory_limit_mb (" + std::to_string(c.eval.memory_limit_mb) +
               " MiB) lets a candidate allocate",
           "a smaller problem, or memory_limit_mb >= " +
               std::to_string(static_cast<long long>(std::ceil(need / 1048576.0))));
    return;
  }
  for (const auto& target : c.targets) {
    const auto* t = s.target(target);
    if (t == nullptr || t->device_memory_bytes <= 0) continue;
    if (need > static_cast<double>(t->device_memory_bytes))
      fail(c, "evaluation.problem",
           "the problem " + sizes_text(sizes) + " needs " + bytes_text(need) + " of device memory, more than a " +
               target + " GPU has (" + bytes_text(static_cast<double>(t->device_memory_bytes)) + ")",
           "a problem whose buffers fit " + bytes_text(static_cast<double>(t->device_memory_bytes)));
  }
}

void check_baselines(const CampaignConfig& c, const FamilySchema& s) {
  std::string known;
  for (const auto& b : s.baselines) known += (known.empty() ? "" : ", ") + b;
  for (std::size_t i = 0; i < c.eval.baselines.size(); ++i) {
    bool found = false;
    for (const auto& b : s.baselines) found = found || b == c.eval.baselines[i];
    if (!found)
      fail(c, "evaluation.baselines[" + std::to_string(i) + "]",
           s.pair() + " has no baseline '" + c.eval.baselines[i] + "'",
           known.empty() ? s.pair() + " has no baselines (baselines: [])" : "baselines of " + s.pair() + ": " + known);
  }
}

}  // namespace

void check_campaign_against_family(const CampaignConfig& campaign, const SiteConfig& site) {
  const FamilySchema& schema = schema_of(campaign);
  check_targets(campaign, site, schema);
  check_parameters(campaign, schema);
  check_problem(campaign, schema);
  check_memory(campaign, schema);
  check_baselines(campaign, schema);
}

}  // namespace kforge::scheduler
