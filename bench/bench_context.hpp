#pragma once
// The run context every benchmark prints with its figures (google/benchmark style): who, where, when.
#include <unistd.h>

#include <fstream>
#include <ostream>
#include <string>
#include <thread>

#include "kforge/jobs/json_text.hpp"
#include "kforge/jobs/record.hpp"

namespace kforge::bench {

inline constexpr int kBenchSchemaVersion = 1;

inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

// Writes `"schema_version":1,"context":{...}` (no surrounding braces) for a JSON object under construction.
inline void write_context_json(std::ostream& out, const std::string& benchmark) {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  out << "\"schema_version\":" << kBenchSchemaVersion << ",\"benchmark\":" << jobs::json_string(benchmark)
      << ",\"context\":{\"date\":" << jobs::json_string(jobs::iso8601_now()) << ",\"host\":" << jobs::json_string(host)
      << ",\"cpu\":" << jobs::json_string(cpu_model()) << ",\"cores\":" << std::thread::hardware_concurrency() << "}";
}

}  // namespace kforge::bench
