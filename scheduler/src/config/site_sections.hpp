#pragma once
// The sections of a site file that live in their own source file (private to src/config).
#include "kforge/scheduler/config.hpp"
#include "yaml_reader.hpp"

namespace kforge::scheduler::config_detail {

// slurm.targets; spec holds the site-wide slurm.* keys already, which each target inherits.
void read_slurm_targets(const MapReader& slurm, SlurmExecutorSpec& spec);

}  // namespace kforge::scheduler::config_detail
