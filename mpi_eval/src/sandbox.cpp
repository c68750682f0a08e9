// run_sandboxed, parent half: fork, watch the child's pipes until it ends or its wall time is up, classify.
// The child half is sandbox_child.cpp; the payload conventions are in child_payload.hpp.
#include "kforge/mpi_eval/sandbox.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "frame.hpp"
#include "kforge/jobs/unique_fd.hpp"
#include "kforge/kernels/signal_phrase.hpp"
#include "kforge/mpi_eval/child_payload.hpp"
#include "sandbox_child.hpp"

namespace kforge::mpi_eval {
namespace {

using Clock = std::chrono::steady_clock;
constexpr std::size_t kTailBytes = 8 * 1024;
constexpr std::size_t kMaxResultBytes = 256u << 20;  // a child flooding its result pipe is cut off here

using Fd = jobs::UniqueFd;

// Both ends close-on-exec; the parent reads without blocking.
struct Pipe {
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) {
      throw std::runtime_error(std::string("run_sandboxed: pipe2 failed: ") + std::strerror(errno));
    }
    read_end = std::make_unique<Fd>(fds[0]);
    write_end = std::make_unique<Fd>(fds[1]);
    ::fcntl(fds[0], F_SETFL, O_NONBLOCK);
  }
  std::unique_ptr<Fd> read_end, write_end;
};

// Keeps the last kTailBytes of everything appended, and how much was dropped before that.
class Tail {
 public:
  void append(const char* data, std::size_t n) {
    text_.append(data, n);
    if (text_.size() > 2 * kTailBytes) {
      dropped_ += text_.size() - kTailBytes;
      text_.erase(0, text_.size() - kTailBytes);
    }
  }
  std::string str() const {
    if (text_.size() <= kTailBytes && dropped_ == 0) return text_;
    const std::size_t cut = text_.size() > kTailBytes ? text_.size() - kTailBytes : 0;
    return "[... " + std::to_string(dropped_ + cut) + " earlier bytes omitted ...]\n" + text_.substr(cut);
  }

 private:
  std::string text_;
  std::size_t dropped_ = 0;
};

// Reads what is available without blocking; closes fd at end of file.
void drain(Fd& fd, const std::function<void(const char*, std::size_t)>& sink) {
  char buf[16384];
  while (fd.open()) {
    const ssize_t n = ::read(fd.get(), buf, sizeof buf);
    if (n > 0) {
      sink(buf, static_cast<std::size_t>(n));
    } else if (n == 0) {
      fd.reset();
    } else if (errno != EINTR) {
      if (errno != EAGAIN) fd.reset();
      return;
    }
  }
}

struct Watch {
  Tail tail;
  std::string result;
  bool result_overflow = false;
  bool timed_out = false;
  int wait_status = 0;
};

void watch_child(pid_t pid, Clock::time_point deadline, Fd& output, Fd& result, Watch& w) {
  const auto to_tail = [&](const char* d, std::size_t n) { w.tail.append(d, n); };
  const auto to_result = [&](const char* d, std::size_t n) {
    if (w.result.size() + n > kMaxResultBytes) w.result_overflow = true;
    if (!w.result_overflow) w.result.append(d, n);
  };
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      w.timed_out = true;
      ::kill(-pid, SIGKILL);
      ::kill(pid, SIGKILL);  // in case it has not reached setpgid yet
      while (::waitpid(pid, &w.wait_status, 0) < 0 && errno == EINTR) {
      }
      break;
    }
    pollfd fds[2];
    nfds_t n = 0;
    for (Fd* fd : {&output, &result}) {
      if (fd->open()) fds[n++] = pollfd{fd->get(), POLLIN, 0};
    }
    // Open pipes wake us on data or hang-up; once both are closed only the exit is left to wait for.
    ::poll(fds, n, static_cast<int>(std::min<long long>(left, n > 0 ? 100 : 5)));
    drain(output, to_tail);
    drain(result, to_result);
    const pid_t done = ::waitpid(pid, &w.wait_status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) throw std::runtime_error(std::string("waitpid: ") + std::strerror(errno));
  }
  drain(output, to_tail);
  drain(result, to_result);
  ::kill(-pid, SIGKILL);  // whatever the child left behind in its process group
}

ChildOutcome classify(const Watch& w, const FrameKey& key) {
  ChildOutcome o;
  o.output_tail = w.tail.str();
  if (w.timed_out) {
    o.end = ChildEnd::timed_out;
    o.signal = SIGKILL;
    return o;
  }
  if (WIFSIGNALED(w.wait_status)) {
    o.end = ChildEnd::signalled;
    o.signal = WTERMSIG(w.wait_status);
    return o;
  }
  o.exit_code = WEXITSTATUS(w.wait_status);
  DecodedFrame frame = decode_frame(w.result, key);
  if (w.result_overflow) {
    frame.state = FrameState::corrupt;
    frame.problem = "result pipe flooded with more than " + std::to_string(kMaxResultBytes) + " bytes";
  }
  if (frame.state == FrameState::empty) {
    o.end = ChildEnd::exited_early;
  } else if (frame.state == FrameState::valid && o.exit_code == 0) {
    o.end = ChildEnd::completed;
    o.payload = std::move(frame.payload);
  } else {
    o.end = ChildEnd::bad_message;
    const std::string problem = frame.state == FrameState::valid
                                    ? "exited with code " + std::to_string(o.exit_code) + " after sending its result"
                                    : frame.problem;
    o.output_tail += "\n[kforge sandbox] " + problem + "\n";
  }
  return o;
}

std::string seconds_text(double ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", ms / 1000.0);
  return buf;
}

}  // namespace

std::string ChildOutcome::describe() const {
  switch (end) {
    case ChildEnd::completed:
      if (is_body_error(*this)) return "raised an exception: " + error_message(*this);
      if (is_sandbox_error(*this)) return "could not set up its sandbox: " + error_message(*this);
      return "completed in " + seconds_text(wall_ms);
    case ChildEnd::exited_early:
      return "exited with code " + std::to_string(exit_code) + " before reporting a result";
    case ChildEnd::signalled:
      return kernels::signal_phrase(signal);
    case ChildEnd::timed_out:
      return "timed out after " + seconds_text(wall_ms) + " wall clock";
    case ChildEnd::bad_message:
      return "sent a corrupt result message (exit code " + std::to_string(exit_code) + ")";
  }
  return "ended in an unknown way";
}

ChildOutcome run_sandboxed(const Limits& limits, const std::filesystem::path& scratch,
                           const std::function<std::string()>& body) {
  Pipe output, result;
  // Unflushed parent buffers would otherwise be written twice, once by the child.
  std::fflush(nullptr);
  std::cout.flush();
  std::cerr.flush();
  FrameKey key = fresh_frame_key();  // a frame under any other key (another run's, a guess) is refused
  const auto start = Clock::now();
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("run_sandboxed: fork failed: ") + std::strerror(errno));
  if (pid == 0)
    run_child(limits, scratch, body, ChildPipes{output.write_end->get(), result.write_end->get()}, parent, key);
  ::setpgid(pid, pid);  // also done by the child; whichever runs first wins the race with kill(-pid)
  output.write_end->reset();
  result.write_end->reset();

  Watch w;
  const auto wall = std::chrono::duration<double>(std::max(0.0, limits.wall_s));
  watch_child(pid, start + std::chrono::duration_cast<Clock::duration>(wall), *output.read_end, *result.read_end, w);
  ChildOutcome o = classify(w, key);
  o.wall_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return o;
}

}  // namespace kforge::mpi_eval
