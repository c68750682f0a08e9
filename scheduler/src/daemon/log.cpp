#include "kforge/scheduler/daemon/log.hpp"

#include <cstdlib>
#include <iostream>
#include <string>

#include "kforge/jobs/record.hpp"

namespace kforge::scheduler::daemon {

Log Log::for_stderr() {
  const char* journal = std::getenv("JOURNAL_STREAM");  // set by systemd when stderr goes to the journal
  return Log(std::cerr, journal && *journal);
}

void Log::write(LogLevel level, std::string_view scope, std::string_view message) {
  const char* name = level == LogLevel::info ? "info" : level == LogLevel::warning ? "warning" : "error";
  std::string line;
  if (journald_) {
    line = level == LogLevel::info ? "<6>" : level == LogLevel::warning ? "<4>" : "<3>";
  } else {
    line = jobs::iso8601_now() + " ";
  }
  line += std::string(name) + " [" + std::string(scope) + "] " + std::string(message) + "\n";
  out_ << line << std::flush;  // one write per line: lines of concurrent writers never interleave mid-line
}

}  // namespace kforge::scheduler::daemon
