#pragma once
// The daemon's one waiting point: blocks SIGCHLD, SIGTERM, SIGINT and SIGHUP and receives them through a
// signalfd, plus an inotify watch on the requests folder, so the main loop sleeps in poll() and wakes up for a
// child's end, a stop, a new request, or the timeout, without any work in a signal handler.
#include <chrono>
#include <filesystem>

#include <signal.h>

namespace kforge::scheduler::daemon {

struct Wakeup {
  bool stop = false;      // SIGTERM or SIGINT
  bool child = false;     // SIGCHLD
  bool requests = false;  // something appeared in the requests folder
};

class SignalWait {
 public:
  // Throws std::runtime_error naming the failing call. The previous signal mask is restored on destruction.
  explicit SignalWait(const std::filesystem::path& requests_dir);
  ~SignalWait();
  SignalWait(const SignalWait&) = delete;
  SignalWait& operator=(const SignalWait&) = delete;

  Wakeup wait(std::chrono::milliseconds timeout);

 private:
  sigset_t previous_mask_;
  int signal_fd_ = -1;
  int inotify_fd_ = -1;  // -1 when inotify is unavailable (some network filesystems): polling still works
};

}  // namespace kforge::scheduler::daemon
