#pragma once
// SPOOL/audit.log: one line per submit, cancel and refusal, with who asked (uid and user name), readable by the
// daemon's user only (0600). Unlike the daemon's log it is a record to keep: appended and fsync-ed.
//   2026-12-03T10:00:00Z submit uid=1001 user=alice campaign=alice/gemm-small accepted
//   2026-12-03T10:01:00Z cancel uid=1002 user=bob campaign=alice/gemm-small refused: not the owner ...
#include <sys/types.h>

#include <filesystem>
#include <string>

namespace kforge::scheduler::daemon {

class AuditLog {
 public:
  // Opens (creates) the file, not following a symlink, and sets mode 0600. Throws std::runtime_error.
  explicit AuditLog(const std::filesystem::path& file);
  ~AuditLog();
  AuditLog(const AuditLog&) = delete;
  AuditLog& operator=(const AuditLog&) = delete;

  // action: submit|cancel|request; who: the user name ("" when the uid has no account); campaign: OWNER/NAME.
  void record(const std::string& action, uid_t uid, const std::string& who, const std::string& campaign,
              const std::string& outcome);

 private:
  int fd_ = -1;
};

}  // namespace kforge::scheduler::daemon
