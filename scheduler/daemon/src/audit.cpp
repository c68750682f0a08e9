#include "kforge/scheduler/daemon/audit.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "kforge/jobs/record.hpp"
#include "kforge/scheduler/daemon/spool.hpp"
#include "kforge/scheduler/daemon/visible_text.hpp"

namespace kforge::scheduler::daemon {

AuditLog::AuditLog(const std::filesystem::path& file) {
  fd_ = ::open(file.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (fd_ < 0) throw SpoolError(file.string() + ": cannot open the audit log: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode) || ::fchmod(fd_, 0600) != 0) {
    ::close(fd_);
    throw SpoolError(file.string() + ": the audit log is not a regular file this daemon owns");
  }
}

AuditLog::~AuditLog() {
  if (fd_ >= 0) ::close(fd_);
}

void AuditLog::record(const std::string& action, uid_t uid, const std::string& who, const std::string& campaign,
                      const std::string& outcome) {
  // One event, one line, and no control byte of a user's text (CR, ESC) reaches the reader's terminal.
  std::string line = jobs::iso8601_now() + " " + visible(action) + " uid=" + std::to_string(uid) +
                     " user=" + (who.empty() ? "?" : visible(who)) + " campaign=" + visible(campaign) + " " +
                     visible(outcome) + "\n";
  // One write of one line with O_APPEND: lines never interleave. A failed write must not stop the daemon.
  [[maybe_unused]] const ssize_t n = ::write(fd_, line.data(), line.size());
  ::fdatasync(fd_);
}

}  // namespace kforge::scheduler::daemon
