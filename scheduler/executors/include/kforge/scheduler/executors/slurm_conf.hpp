#pragma once
// Which slurm.conf this process, its sbatch/squeue/scontrol and its children use. libslurm ends the process
// (fatal) when it finds no configuration, so every Slurm path calls these before asking Slurm anything.
#include <string>

#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {

// Sets SLURM_CONF=<slurm.conf> for this process (inherited by the Slurm tools and every child) when the
// site names one: the site file is the admin's statement about the cluster and wins over the environment.
// Nothing happens for a site that names none.
void use_site_slurm_conf(const SiteConfig& site);

// "" when a Slurm configuration is readable (slurm.conf of the site, else $SLURM_CONF, else
// /etc/slurm/slurm.conf); otherwise why not, naming the site file and the key that would fix it.
std::string missing_slurm_conf(const SiteConfig& site);

// For a slurm site: use_site_slurm_conf, then a ConfigError (exit 2, nothing written) located at
// slurm.conf (or the slurm section) when no configuration is readable. A no-op for a local site.
void require_slurm_conf(const SiteConfig& site);

}  // namespace kforge::scheduler
