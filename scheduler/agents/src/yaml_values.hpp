#pragma once
// Genome values from YAML scalars, shared by the brief reader and the children reader.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <string>

#include "kforge/jobs/genome.hpp"

namespace kforge::scheduler::agent_yaml {

// A quoted scalar is a string; a plain one an integer, else a double (jobs::parse_param_value forms), else a
// string. nullopt when the node is not a scalar.
std::optional<jobs::ParamValue> typed_value(const YAML::Node& node);

// True when the scalar denotes `listed` (a parameter's listed value). Lenient about quoting, strict about the
// value: "64" and 64 both match the integer 64, 64.5 does not; 0.5 matches the double 0.5.
bool denotes(const YAML::Node& node, const jobs::ParamValue& listed);

// Text of a scalar for messages: `MC: 65`.
std::string scalar_text(const YAML::Node& node);

}  // namespace kforge::scheduler::agent_yaml
