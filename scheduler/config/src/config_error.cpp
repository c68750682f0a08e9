// ConfigError: "FILE:LINE:COLUMN: key: what is wrong (what is allowed)".
#include <string>
#include <utility>

#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler {
namespace {

std::string format_config_error(const SourceLocation& where, const std::string& key, const std::string& problem,
                                const std::string& allowed) {
  std::string text =
      where.file + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) + ": " + key + ": " + problem;
  if (!allowed.empty()) text += " (" + allowed + ")";
  return text;
}

}  // namespace

ConfigError::ConfigError(SourceLocation where, std::string key, std::string problem, std::string allowed)
    : std::runtime_error(format_config_error(where, key, problem, allowed)),
      where_(std::move(where)),
      key_(std::move(key)) {}

}  // namespace kforge::scheduler
