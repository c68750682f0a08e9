#include "kforge/scheduler/daemon/as_user.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <thread>

#include "kforge/jobs/fd_io.hpp"

namespace kforge::scheduler::daemon {

namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kMaxReplyBytes = 64 << 20;  // far above any answer (a status entry, a folder's campaigns)

// The child: becomes the user, works, answers "o<reply>" or "e<error>", exits without running the parent's
// destructors or flushing its copied stdio buffers.
[[noreturn]] void helper_main(int out, const Account& who, bool switch_user, pid_t parent,
                              const std::function<std::string()>& work) {
  std::string reply;
  if (const char* failed = become_for_good(who, switch_user)) {
    reply = "ecould not become " + describe(who) + ": " + failed;
  } else {
    ::prctl(PR_SET_DUMPABLE, 0);         // it holds copies of the caller's descriptors
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // after the identity switch, which clears it
    if (::getppid() != parent) ::_exit(1);
    try {
      reply = "o" + work();
    } catch (const std::exception& e) {
      reply = std::string("e") + e.what();
    } catch (...) {
      reply = "ean unknown error";
    }
  }
  jobs::write_all(out, reply);
  ::_exit(0);
}

// Collects the child's exit. A child that even SIGKILL does not end at once (stuck in a filesystem) is left for
// the caller's own reaping (kforged's waitpid(-1)): the caller must not hang on it.
void reap(pid_t pid, bool killed) {
  if (!killed) {
    while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    return;
  }
  for (int i = 0; i < 20 && ::waitpid(pid, nullptr, WNOHANG) == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

std::string run_as(const Account& who, bool switch_user, std::chrono::milliseconds limit,
                   const std::function<std::string()>& work) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw HelperFailed(std::string("pipe failed: ") + std::strerror(errno));
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) {
    const std::string why = std::strerror(errno);
    ::close(fds[0]);
    ::close(fds[1]);
    throw HelperFailed("fork failed: " + why);
  }
  if (pid == 0) {
    ::close(fds[0]);
    helper_main(fds[1], who, switch_user, parent, work);
  }
  ::close(fds[1]);
  const auto deadline = Clock::now() + limit;
  std::string reply;
  std::string problem;
  char buf[65536];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    pollfd p{fds[0], POLLIN, 0};
    const int ready = left > 0 ? ::poll(&p, 1, static_cast<int>(left)) : 0;
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      problem = "no answer within " + std::to_string(limit.count() / 1000.0).substr(0, 4) + " s (killed)";
      break;
    }
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    reply.append(buf, static_cast<std::size_t>(n));
    if (reply.size() > kMaxReplyBytes) {
      problem = "answer larger than " + std::to_string(kMaxReplyBytes) + " bytes (killed)";
      break;
    }
  }
  ::close(fds[0]);
  if (!problem.empty()) ::kill(pid, SIGKILL);
  reap(pid, !problem.empty());
  if (!problem.empty()) throw HelperFailed("the helper reading as " + describe(who) + " gave " + problem);
  if (reply.empty()) throw HelperFailed("the helper acting as " + describe(who) + " ended without an answer");
  if (reply[0] != 'o') throw HelperFailed(reply.substr(1));
  return reply.substr(1);
}

}  // namespace kforge::scheduler::daemon
