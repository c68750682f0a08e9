#pragma once
// The sections of a site file that live in their own source file (private to src/config).
#include "kforge/scheduler/config/config.hpp"
#include "yaml_reader.hpp"

namespace kforge::scheduler::config_detail {

// What is wrong with a value that goes into a batch script or job description ("" when nothing): a line break,
// another control character, or "#SBATCH" (sbatch_values.cpp).
std::string sbatch_unsafe(std::string_view text);
// get_string that also refuses what sbatch_unsafe finds, at the value.
std::string get_sbatch_string(const MapReader& m, const std::string& key, std::string fallback,
                              const std::string& allowed);
// Fails at node (under full_key) when sbatch_unsafe(text) finds something.
void require_sbatch_safe(const MapReader& m, const YAML::Node& node, const std::string& full_key,
                         const std::string& text, const std::string& allowed);

// slurm.targets; spec holds the site-wide slurm.* keys already, which each target inherits.
void read_slurm_targets(const MapReader& slurm, SlurmExecutorSpec& spec);

}  // namespace kforge::scheduler::config_detail
