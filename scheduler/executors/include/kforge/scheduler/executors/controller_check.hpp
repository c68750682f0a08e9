#pragma once
// `kforge validate` on a Slurm site: the partitions and GRES of slurm.targets, asked of the controller.
#include <string>
#include <vector>

#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {

// True when one of the node GRES lists (a node's Gres= as Slurm prints it, e.g. "gpu:h100:4(S:0-1),gpu:b200:4")
// offers everything `wanted` asks for per node ("gpu:h100:4", "gpu:2", "gpu:h100", comma-separated).
bool some_node_offers(const std::vector<std::string>& node_gres, const std::string& wanted);

// The line `kforge validate` prints for the controller: what was checked, or "controller not reachable:
// partitions and GRES not checked (why)"; "" for a local site. Sets SLURM_CONF from slurm.conf first (slurm_conf.hpp).
// Throws ConfigError (exit 2) at slurm.targets.<t>.partition or .gres when the controller lacks one, and at
// slurm.conf when the site names a configuration that is not readable.
std::string check_site_against_controller(const SiteConfig& site);

}  // namespace kforge::scheduler
