// slurm.targets of a site file: where each hardware target's array tasks run, and with what resources.
// A target inherits the site-wide slurm.* resource keys and may override each (docs/site-schema.md).
#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "site_sections.hpp"

namespace kforge::scheduler::config_detail {
namespace {

// Options kforge writes itself, with the site key that sets each: an extra option must not repeat one.
struct OwnedOption {
  std::string_view option;
  std::string_view use_instead;
};
constexpr OwnedOption kOwnedOptions[] = {
    {"array", "kforge sets it"},
    {"job-name", "kforge sets it"},
    {"comment", "kforge sets it"},
    {"output", "kforge sets it"},
    {"error", "kforge sets it"},
    {"chdir", "kforge sets it"},
    {"wckey", "kforge sets it"},
    {"requeue", "kforge sets it"},
    {"no-requeue", "kforge sets it"},
    {"exclude", "kforge sets it on retries"},
    {"export", "use slurm.environment"},
    {"parsable", "kforge sets it"},
    {"wrap", "kforge writes the script"},
    {"partition", "use partition"},
    {"gres", "use gres"},
    {"gpus", "use gres"},
    {"gpus-per-node", "use gres"},
    {"constraint", "use constraint"},
    {"nodes", "use nodes"},
    {"ntasks", "use ranks_per_task"},
    {"ntasks-per-node", "use ranks_per_task and nodes"},
    {"cpus-per-task", "use cpus_per_rank"},
    {"time", "use time_limit_min"},
    {"mem", "use mem"},
    {"mem-per-cpu", "use mem"},
    {"mem-per-gpu", "use mem"},
    {"exclusive", "use exclusive"},
    {"account", "use account"},
    {"qos", "use qos"},
    {"reservation", "use slurm.reservation"},
    {"oversubscribe", "use exclusive"},
};

bool is_option_name(std::string_view name) {
  if (name.empty() || name[0] < 'a' || name[0] > 'z') return false;
  for (char c : name)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) return false;
  return true;
}

std::vector<std::string> read_extra_options(const MapReader& t) {
  const std::string key = "extra_sbatch_options";
  const std::string allowed = "a list of sbatch options, each '--name' or '--name=value', e.g. [--mail-type=END]";
  std::vector<std::string> out;
  if (!t.has(key)) return out;
  const YAML::Node& list = t.value(key);
  if (!list.IsSequence()) t.fail(key, "expected a list, got " + describe_value(list), allowed);
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string item_key = t.key_path(key) + "[" + std::to_string(i) + "]";
    if (!list[i].IsScalar()) t.fail_at(list[i], item_key, "expected a string, got " + describe_value(list[i]), allowed);
    const std::string text = list[i].Scalar();
    require_sbatch_safe(t, list[i], item_key, text, allowed);
    const std::string name = text.starts_with("--") ? text.substr(2, text.find('=') - 2) : "";
    if (!text.starts_with("--") || !is_option_name(name) || text.find('\n') != std::string::npos) {
      t.fail_at(list[i], item_key, "'" + text + "' is not an sbatch long option", allowed);
    }
    // sbatch accepts any unambiguous abbreviation ("--part=x" is --partition), so a prefix clashes too.
    for (const auto& owned : kOwnedOptions) {
      if (owned.option.starts_with(name)) {
        t.fail_at(list[i], item_key,
                  "'" + text + "' clashes with --" + std::string(owned.option) + ", which kforge sets itself (" +
                      std::string(owned.use_instead) + ")",
                  "an option kforge does not set itself (docs/site-schema.md lists those)");
      }
    }
    out.push_back(text);
  }
  return out;
}

// "256G", "500000M", "64000" (megabytes, Slurm's default unit), "0" (all of the node's memory).
bool is_slurm_memory(std::string_view text) {
  if (text.empty()) return false;
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits == 0 || digits > 12) return false;
  const std::string_view unit = text.substr(digits);
  return unit.empty() || unit == "K" || unit == "M" || unit == "G" || unit == "T";
}

// The GPU count a GRES asks for per node ("gpu:h100:4" -> 4, "gpu" -> 1); 0 when it names no GPU.
int gpu_count(const std::string& gres) {
  int total = 0;
  std::size_t start = 0;
  while (start < gres.size()) {
    const std::size_t comma = std::min(gres.find(',', start), gres.size());
    const std::string item = gres.substr(start, comma - start);
    if (item == "gpu" || item.starts_with("gpu:")) {
      const std::string last = item.substr(item.rfind(':') + 1);
      std::int64_t n = 1;
      if (item.find(':') != std::string::npos && parse_int64(last, n))
        total += static_cast<int>(n);
      else
        total += 1;
    }
    start = comma + 1;
  }
  return total;
}

SlurmTargetSpec read_target(const MapReader& t, const SlurmExecutorSpec& site_wide) {
  SlurmTargetSpec target;
  target.partition = t.require_string("partition", "a Slurm partition name");
  require_sbatch_safe(t, t.value("partition"), t.key_path("partition"), target.partition, "a Slurm partition name");
  if (target.partition.empty()) t.fail("partition", "empty partition name", "a Slurm partition name");
  target.gres = get_sbatch_string(t, "gres", "", "a GRES per node, e.g. gpu:h100:4");
  target.constraint = get_sbatch_string(t, "constraint", "", "a Slurm node feature expression");
  target.nodes = t.get_int("nodes", 1, int_at_least(1));
  target.gpus_per_node = t.get_int("gpus_per_node", 0, int_between(0, 64));
  if (t.has("ranks_per_task")) target.ranks_per_task = t.get_int("ranks_per_task", 1, int_at_least(1));
  if (t.has("cpus_per_rank")) target.cpus_per_rank = t.get_int("cpus_per_rank", 1, int_at_least(1));
  if (t.has("time_limit_min")) target.time_limit_min = t.get_int("time_limit_min", 1, int_at_least(1));
  const std::string mem_allowed = "memory per node as Slurm writes it: 256G, 500000M, 64000 (MB), 0 = all";
  target.mem = t.get_string("mem", "", mem_allowed);
  if (t.has("mem") && !is_slurm_memory(target.mem))
    t.fail("mem", "'" + target.mem + "' is not a memory size", mem_allowed);
  target.exclusive = t.get_bool("exclusive", false);
  if (t.has("account")) target.account = get_sbatch_string(t, "account", "", "a Slurm account");
  if (t.has("qos")) target.qos = get_sbatch_string(t, "qos", "", "a Slurm QOS");
  target.extra_sbatch_options = read_extra_options(t);
  target.partition_where = t.where("partition");
  target.gres_where = t.has("gres") ? t.where("gres") : t.where();

  const int ranks = target.ranks_per_task.value_or(site_wide.ranks_per_task);
  const std::string ranks_key = t.has("ranks_per_task") ? "ranks_per_task" : "nodes";
  if (ranks % target.nodes != 0) {
    t.fail(ranks_key,
           std::to_string(ranks) + " ranks do not spread evenly over " + std::to_string(target.nodes) + " node(s)",
           "ranks_per_task a multiple of nodes");
  }
  const int ranks_per_node = ranks / target.nodes;
  if (target.gpus_per_node > 0 && ranks_per_node > target.gpus_per_node) {
    t.fail(
        ranks_key,
        std::to_string(ranks_per_node) + " ranks per node but gpus_per_node is " + std::to_string(target.gpus_per_node),
        "at most one rank per GPU");
  }
  if (target.gpus_per_node > 0 && gpu_count(target.gres) > target.gpus_per_node) {
    t.fail("gres",
           "asks for " + std::to_string(gpu_count(target.gres)) + " GPUs per node but gpus_per_node is " +
               std::to_string(target.gpus_per_node),
           "a GPU count <= gpus_per_node");
  }
  return target;
}

}  // namespace

void read_slurm_targets(const MapReader& slurm, SlurmExecutorSpec& spec) {
  const std::string allowed = "a mapping of campaign target -> {partition, gres, ...} (docs/site-schema.md)";
  MapReader targets = slurm.section("targets", {});
  spec.targets_where = slurm.has("targets") ? slurm.where("targets") : slurm.where();
  for (const auto& [key, value] : targets.entries()) {
    const std::string name = key.Scalar();
    if (!is_identifier(name)) targets.fail(name, "'" + name + "' is not a target name", "an identifier, e.g. hopper");
    MapReader t = targets.section(
        name, {"partition", "gres", "constraint", "nodes", "gpus_per_node", "ranks_per_task", "cpus_per_rank",
               "time_limit_min", "mem", "exclusive", "account", "qos", "extra_sbatch_options"});
    SlurmTargetSpec target = read_target(t, spec);
    target.where = targets.where(name);
    spec.targets[name] = target;
  }
  if (spec.targets.empty()) {
    // `targets: {}` is reported at its own line, a missing key at the slurm mapping.
    if (slurm.has("targets")) slurm.fail("targets", "no targets", allowed);
    slurm.fail_missing("targets", allowed);
  }
}

}  // namespace kforge::scheduler::config_detail
