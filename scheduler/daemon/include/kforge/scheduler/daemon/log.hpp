#pragma once
// kforged's log: one line per event on stderr, with a level and the campaign it concerns, e.g.
//   2025-01-01T12:00:00Z info [gemm-small] started kforge run (pid 4242)
// Under systemd (JOURNAL_STREAM set) lines carry a syslog priority prefix "<6>" instead of a time: journald
// stamps them itself and maps the prefix to its priority.
#include <iosfwd>
#include <string_view>

namespace kforge::scheduler::daemon {

enum class LogLevel { info, warning, error };

class Log {
 public:
  // journald_format: the "<N>" prefix and no time stamp. for_stderr() picks it from $JOURNAL_STREAM.
  Log(std::ostream& out, bool journald_format) : out_(out), journald_(journald_format) {}
  static Log for_stderr();

  // scope: a campaign name, or "kforged" for the daemon itself.
  void write(LogLevel level, std::string_view scope, std::string_view message);
  void info(std::string_view scope, std::string_view message) { write(LogLevel::info, scope, message); }
  void warning(std::string_view scope, std::string_view message) { write(LogLevel::warning, scope, message); }
  void error(std::string_view scope, std::string_view message) { write(LogLevel::error, scope, message); }

 private:
  std::ostream& out_;
  bool journald_;
};

}  // namespace kforge::scheduler::daemon
