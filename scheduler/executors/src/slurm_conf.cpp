// slurm_conf.hpp: the site's slurm.conf becomes SLURM_CONF before any Slurm call.
#include "kforge/scheduler/executors/slurm_conf.hpp"

#include <unistd.h>

#include <cstdlib>

namespace kforge::scheduler {

namespace {
constexpr const char* kDefaultSlurmConf = "/etc/slurm/slurm.conf";
}

void use_site_slurm_conf(const SiteConfig& site) {
  if (site.executor == "slurm" && !site.slurm.conf.empty()) ::setenv("SLURM_CONF", site.slurm.conf.c_str(), 1);
}

std::string missing_slurm_conf(const SiteConfig& site) {
  if (!site.slurm.conf.empty()) {
    if (::access(site.slurm.conf.c_str(), R_OK) == 0) return "";
    return "the site's slurm.conf " + site.slurm.conf + " is not readable";
  }
  const char* env = std::getenv("SLURM_CONF");
  if (env != nullptr && *env != '\0') {
    if (::access(env, R_OK) == 0) return "";
    return std::string("SLURM_CONF=") + env + " is not readable";
  }
  if (::access(kDefaultSlurmConf, R_OK) == 0) return "";
  return std::string("no Slurm configuration: ") + site.file.string() +
         " sets no slurm.conf, SLURM_CONF is not set and " + kDefaultSlurmConf + " does not exist";
}

void require_slurm_conf(const SiteConfig& site) {
  if (site.executor != "slurm") return;
  use_site_slurm_conf(site);
  const std::string why = missing_slurm_conf(site);
  if (why.empty()) return;
  const SourceLocation at =
      site.slurm.conf_where.line > 0 ? site.slurm.conf_where : SourceLocation{site.file.string(), 1, 1};
  throw ConfigError(
      at, "slurm.conf", why,
      "conf: /path/to/slurm.conf under slurm: in " + site.file.string() + ", or SLURM_CONF in the environment");
}

}  // namespace kforge::scheduler
