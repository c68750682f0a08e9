// parse_site / load_site / embedded_default_site: the site file (site-configs/local.yaml is the embedded default).
#include <string>
#include <vector>

#include "kforge/embedded_site.hpp"
#include "site_sections.hpp"
#include "yaml_reader.hpp"

namespace kforge::scheduler {
namespace config_detail {
namespace {

void read_site_section(const MapReader& top, SiteConfig& site) {
  const std::vector<std::string> keys = {"name", "executor", "max_task_retries", "stop_at_infra_error_share",
                                         "catalog"};
  if (!top.has("site")) top.fail_missing("site", "a mapping with keys: " + join(keys));
  MapReader section = top.section("site", keys);

  const std::string name_allowed = "a safe file name: letters, digits, '.', '_', '-'";
  site.name = section.require_string("name", name_allowed);
  if (!is_safe_file_name(site.name)) section.fail("name", "'" + site.name + "' is not a safe file name", name_allowed);

  const std::string executor_allowed = "local or slurm";
  site.executor = section.get_string("executor", site.executor, executor_allowed);
  if (site.executor != "local" && site.executor != "slurm") {
    section.fail("executor", "unknown executor '" + site.executor + "'", executor_allowed);
  }

  site.max_task_retries = section.get_int("max_task_retries", site.max_task_retries, int_at_least(0));
  NumberRule share = number_closed(0.0, 1.0);
  share.min_open = true;
  share.allowed = "a share > 0 and <= 1 (1 = stop only when the whole generation failed)";
  site.stop_at_infra_error_share =
      section.get_number("stop_at_infra_error_share", site.stop_at_infra_error_share, share);

  const std::string catalog_allowed = "an absolute path of a folder (mode 1777 when users share it), or none";
  site.catalog = section.get_string("catalog", site.catalog, catalog_allowed);
  if (section.has("catalog") && (site.catalog.empty() || (site.catalog != "none" && site.catalog.front() != '/'))) {
    section.fail("catalog", "'" + site.catalog + "' is neither an absolute path nor none", catalog_allowed);
  }
}

void read_local_section(const MapReader& top, LocalExecutorSpec& local) {
  MapReader section = top.section("local", {"ranks_per_task", "max_concurrent_tasks", "mpirun", "mpirun_args"});
  local.ranks_per_task = section.get_int("ranks_per_task", local.ranks_per_task, int_at_least(1));
  local.max_concurrent_tasks = section.get_int("max_concurrent_tasks", local.max_concurrent_tasks, int_at_least(1));
  const std::string mpirun_allowed = "an mpirun command, e.g. mpirun or /opt/openmpi/bin/mpirun";
  local.mpirun = section.get_string("mpirun", local.mpirun, mpirun_allowed);
  if (local.mpirun.empty()) section.fail("mpirun", "empty command", mpirun_allowed);
  // Arguments may repeat (e.g. two --mca pairs), so no distinctness check.
  if (section.has("mpirun_args")) {
    const std::string args_allowed = "a list of arguments, e.g. [--oversubscribe]";
    const YAML::Node& list = section.value("mpirun_args");
    if (!list.IsSequence()) section.fail("mpirun_args", "expected a list, got " + describe_value(list), args_allowed);
    local.mpirun_args.clear();
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (!list[i].IsScalar())
        section.fail_at(list[i], section.key_path("mpirun_args") + "[" + std::to_string(i) + "]",
                        "expected a string, got " + describe_value(list[i]), args_allowed);
      local.mpirun_args.push_back(list[i].Scalar());
    }
  }
}

std::vector<std::string> read_string_list(const MapReader& section, const std::string& key,
                                          const std::string& allowed) {
  std::vector<std::string> out;
  if (!section.has(key)) return out;
  const YAML::Node& list = section.value(key);
  if (!list.IsSequence()) section.fail(key, "expected a list, got " + describe_value(list), allowed);
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (!list[i].IsScalar()) {
      section.fail_at(list[i], section.key_path(key) + "[" + std::to_string(i) + "]",
                      "expected a string, got " + describe_value(list[i]), allowed);
    }
    require_sbatch_safe(section, list[i], section.key_path(key) + "[" + std::to_string(i) + "]", list[i].Scalar(),
                        allowed);
    out.push_back(list[i].Scalar());
  }
  return out;
}

void read_slurm_section(const MapReader& top, SiteConfig& site) {
  const std::vector<std::string> keys = {"client",
                                         "conf",
                                         "account",
                                         "qos",
                                         "reservation",
                                         "time_limit_min",
                                         "ranks_per_task",
                                         "cpus_per_rank",
                                         "max_concurrent_tasks",
                                         "mpi_launch",
                                         "srun_mpi",
                                         "modules",
                                         "environment",
                                         "poll_interval_s",
                                         "agent_partition",
                                         "agent_cpus",
                                         "targets"};
  if (!top.has("slurm")) {
    if (site.executor == "slurm") top.fail_missing("slurm", "a mapping with keys: " + join(keys));
    return;
  }
  MapReader section = top.section("slurm", keys);
  SlurmExecutorSpec& spec = site.slurm;
  spec.client = section.get_string("client", spec.client, "auto, libslurm or cli");
  if (spec.client != "auto" && spec.client != "libslurm" && spec.client != "cli") {
    section.fail("client", "unknown client '" + spec.client + "'", "auto, libslurm or cli");
  }
  const std::string conf_allowed = "the absolute path of the site's slurm.conf, e.g. /etc/slurm/slurm.conf";
  spec.conf = get_sbatch_string(section, "conf", spec.conf, conf_allowed);
  spec.conf_where = section.where("conf");
  if (section.has("conf") && !spec.conf.starts_with("/")) {
    section.fail("conf", "'" + spec.conf + "' is not an absolute path", conf_allowed);
  }
  spec.account = get_sbatch_string(section, "account", spec.account, "a Slurm account");
  spec.qos = get_sbatch_string(section, "qos", spec.qos, "a Slurm QOS");
  spec.reservation = get_sbatch_string(section, "reservation", spec.reservation, "a Slurm reservation");
  spec.time_limit_min = section.get_int("time_limit_min", spec.time_limit_min, int_at_least(1));
  spec.ranks_per_task = section.get_int("ranks_per_task", spec.ranks_per_task, int_at_least(1));
  spec.cpus_per_rank = section.get_int("cpus_per_rank", spec.cpus_per_rank, int_at_least(1));
  spec.max_concurrent_tasks = section.get_int("max_concurrent_tasks", spec.max_concurrent_tasks, int_at_least(1));
  spec.mpi_launch = section.get_string("mpi_launch", spec.mpi_launch, "srun or mpirun");
  if (spec.mpi_launch != "srun" && spec.mpi_launch != "mpirun") {
    section.fail("mpi_launch", "unknown launcher '" + spec.mpi_launch + "'", "srun or mpirun");
  }
  spec.srun_mpi = get_sbatch_string(section, "srun_mpi", spec.srun_mpi, "an srun --mpi plugin: pmix, pmi2, none");
  spec.modules = read_string_list(section, "modules", "a list of module names, e.g. [openmpi/4.1]");
  MapReader env = section.section("environment", {});
  for (const auto& [key, value] : env.entries()) {
    const std::string name = key.Scalar();
    if (!is_identifier(name)) env.fail(name, "'" + name + "' is not a variable name", "an identifier");
    spec.environment[name] = env.require_string(name, "a string value");
    require_sbatch_safe(env, env.value(name), env.key_path(name), spec.environment[name], "a string value");
  }
  NumberRule poll = number_closed(0.0, 3600.0);  // a larger value overflows the clocks (and never polls)
  poll.min_open = true;
  poll.allowed = "a number of seconds > 0 and <= 3600";
  spec.poll_interval_s = section.get_number("poll_interval_s", spec.poll_interval_s, poll);
  spec.agent_partition =
      get_sbatch_string(section, "agent_partition", spec.agent_partition, "a Slurm partition for agents");
  spec.agent_partition_where = section.where("agent_partition");
  spec.agent_cpus = section.get_int("agent_cpus", spec.agent_cpus, int_at_least(1));
  read_slurm_targets(section, spec);
}

}  // namespace
}  // namespace config_detail

SiteConfig parse_site(const std::string& text, const std::filesystem::path& file) {
  using namespace config_detail;
  const std::string file_name = file.string();
  YAML::Node document = load_yaml(text, file_name);
  MapReader top(document, "", file_name, {"site", "local", "slurm"}, {file_name, 1, 1});
  SiteConfig site;
  site.file = file;
  site.text = text;
  read_site_section(top, site);
  read_local_section(top, site.local);
  read_slurm_section(top, site);
  return site;
}

SiteConfig load_site(const std::filesystem::path& file) {
  return parse_site(config_detail::read_config_file(file), file);
}

void check_site_serves_campaign(const SiteConfig& site, const CampaignConfig& campaign) {
  if (site.executor != "slurm") return;
  std::vector<std::string> known;
  for (const auto& [name, spec] : site.slurm.targets) known.push_back(name);
  for (const auto& target : campaign.targets) {
    if (!site.slurm.targets.count(target)) {
      throw ConfigError(site.slurm.targets_where, "slurm.targets",
                        "campaign " + campaign.name + " needs target '" + target + "' but the site does not define it",
                        "targets defined here: " + config_detail::join(known));
    }
  }
}

SiteConfig embedded_default_site() { return parse_site(embedded::kLocalSiteYaml, embedded::kLocalSiteYamlName); }

}  // namespace kforge::scheduler
