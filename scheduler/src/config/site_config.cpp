// parse_site / load_site / embedded_default_site: the site file (site-configs/local.yaml is the embedded default).
#include <string>
#include <vector>

#include "kforge/embedded_site.hpp"
#include "yaml_reader.hpp"

namespace kforge::scheduler {
namespace config_detail {
namespace {

void read_site_section(const MapReader& top, SiteConfig& site) {
  const std::vector<std::string> keys = {"name", "executor", "max_task_retries"};
  if (!top.has("site")) top.fail_missing("site", "a mapping with keys: " + join(keys));
  MapReader section = top.section("site", keys);

  const std::string name_allowed = "a safe file name: letters, digits, '.', '_', '-'";
  site.name = section.require_string("name", name_allowed);
  if (!is_safe_file_name(site.name)) section.fail("name", "'" + site.name + "' is not a safe file name", name_allowed);

  const std::string executor_allowed = "local; the slurm executor is not available yet";
  site.executor = section.get_string("executor", site.executor, executor_allowed);
  if (site.executor != "local") section.fail("executor", "unknown executor '" + site.executor + "'", executor_allowed);

  site.max_task_retries = section.get_int("max_task_retries", site.max_task_retries, int_at_least(0));
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

}  // namespace
}  // namespace config_detail

SiteConfig parse_site(const std::string& text, const std::filesystem::path& file) {
  using namespace config_detail;
  const std::string file_name = file.string();
  YAML::Node document = load_yaml(text, file_name);
  MapReader top(document, "", file_name, {"site", "local"}, {file_name, 1, 1});
  SiteConfig site;
  site.file = file;
  site.text = text;
  read_site_section(top, site);
  read_local_section(top, site.local);
  return site;
}

SiteConfig load_site(const std::filesystem::path& file) { return parse_site(config_detail::read_config_file(file), file); }

SiteConfig embedded_default_site() {
  return parse_site(embedded::kLocalSiteYaml, embedded::kLocalSiteName);
}

}  // namespace kforge::scheduler
