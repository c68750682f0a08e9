#pragma once
// Helpers shared by the config tests: the what() of the ConfigError a parse throws.
#include <functional>
#include <string>

#include "kforge/scheduler/config/config.hpp"

namespace kforge::scheduler::test {

// what() of the ConfigError that parse throws; "no error" if it returns normally.
inline std::string config_error_of(const std::function<void()>& parse) {
  try {
    parse();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

inline std::string campaign_error(const std::string& yaml) {
  return config_error_of([&] { parse_campaign(yaml, "c.yaml"); });
}

inline std::string site_error(const std::string& yaml) {
  return config_error_of([&] { parse_site(yaml, "s.yaml"); });
}

// The smallest valid campaign: the required keys only. Tests append sections to it.
inline const std::string kMinimalCampaign =
    "campaign:\n"
    "  name: t\n"
    "  family: gemm\n"
    "  backend: host\n"
    "space:\n"
    "  parameters:\n"
    "    MC: [16, 32]\n";  // lines 1-7; an appended section starts at line 8

}  // namespace kforge::scheduler::test
