#include "kforge/scheduler/daemon/log.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include "kforge/jobs/record.hpp"
#include "kforge/scheduler/daemon/visible_text.hpp"

namespace kforge::scheduler::daemon {

namespace {
// systemd sets JOURNAL_STREAM=DEV:INODE for the journal stream it connected; stderr goes to the journal only if
// fd 2 is still that stream (a redirect inherited from the unit would leave the variable set).
bool stderr_is_journal() {
  const char* journal = std::getenv("JOURNAL_STREAM");
  unsigned long long dev = 0, ino = 0;
  struct stat st {};
  if (!journal || std::sscanf(journal, "%llu:%llu", &dev, &ino) != 2 || ::fstat(STDERR_FILENO, &st) != 0) return false;
  return st.st_dev == dev && st.st_ino == ino;
}
}  // namespace

Log Log::for_stderr() { return Log(std::cerr, stderr_is_journal()); }

void Log::write(LogLevel level, std::string_view scope, std::string_view message) {
  const char* name = level == LogLevel::info ? "info" : level == LogLevel::warning ? "warning" : "error";
  std::string line;
  if (journald_) {
    line = level == LogLevel::info ? "<6>" : level == LogLevel::warning ? "<4>" : "<3>";
  } else {
    line = jobs::iso8601_now() + " ";
  }
  // Scope and message may quote what users wrote (a request's file name, a campaign's last log line): one event
  // stays one line, and no byte of it drives the terminal of whoever reads the log.
  line += std::string(name) + " [" + visible(scope) + "] " + visible(message) + "\n";
  out_ << line << std::flush;  // one write per line: lines of concurrent writers never interleave mid-line
}

}  // namespace kforge::scheduler::daemon
