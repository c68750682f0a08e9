#include "signal_wait.hpp"

#include <poll.h>
#include <sys/inotify.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <string>

namespace kforge::scheduler::daemon {

SignalWait::SignalWait(const std::filesystem::path& requests_dir) {
  sigset_t mask;
  sigemptyset(&mask);
  for (int s : {SIGCHLD, SIGTERM, SIGINT, SIGHUP}) sigaddset(&mask, s);
  if (::sigprocmask(SIG_BLOCK, &mask, &previous_mask_) != 0) {
    throw std::runtime_error(std::string("sigprocmask failed: ") + std::strerror(errno));
  }
  signal_fd_ = ::signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
  if (signal_fd_ < 0) {
    const std::string why = std::strerror(errno);
    ::sigprocmask(SIG_SETMASK, &previous_mask_, nullptr);
    throw std::runtime_error("signalfd failed: " + why);
  }
  inotify_fd_ = ::inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
  if (inotify_fd_ >= 0 && ::inotify_add_watch(inotify_fd_, requests_dir.c_str(), IN_MOVED_TO | IN_CLOSE_WRITE) < 0) {
    ::close(inotify_fd_);
    inotify_fd_ = -1;
  }
}

SignalWait::~SignalWait() {
  if (inotify_fd_ >= 0) ::close(inotify_fd_);
  ::close(signal_fd_);
  ::sigprocmask(SIG_SETMASK, &previous_mask_, nullptr);
}

Wakeup SignalWait::wait(std::chrono::milliseconds timeout) {
  std::array<pollfd, 2> fds{pollfd{signal_fd_, POLLIN, 0}, pollfd{inotify_fd_, POLLIN, 0}};
  const int n = ::poll(fds.data(), inotify_fd_ >= 0 ? 2 : 1, static_cast<int>(timeout.count()));
  Wakeup w;
  if (n <= 0) return w;  // timeout, or EINTR from a signal we do not handle: rescan either way
  signalfd_siginfo info;
  while (::read(signal_fd_, &info, sizeof info) == static_cast<ssize_t>(sizeof info)) {
    if (info.ssi_signo == SIGCHLD) w.child = true;
    if (info.ssi_signo == SIGTERM || info.ssi_signo == SIGINT) w.stop = true;
    // SIGHUP: wake up and rescan (nothing to reload: the spool is re-read every round anyway)
  }
  if (inotify_fd_ >= 0) {
    alignas(inotify_event) char buf[4096];
    while (::read(inotify_fd_, buf, sizeof buf) > 0) w.requests = true;
  }
  return w;
}

}  // namespace kforge::scheduler::daemon
