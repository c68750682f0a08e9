// SIGTERM / SIGINT ask the driver to stop between two steps instead of dying mid-write. Which signal came
// decides what happens to submitted Slurm arrays (executor.hpp: StopKind).
#include <csignal>

#include "kforge/scheduler/executors/executor.hpp"

namespace kforge::scheduler {
namespace {
volatile std::sig_atomic_t g_stop = 0;  // the first stop signal received, 0 for none
extern "C" void on_stop_signal(int signal) {
  if (g_stop == 0) g_stop = signal;
}
bool g_detach_on_interrupt = false;
}  // namespace

void install_stop_handlers(bool detach_on_interrupt) {
  g_detach_on_interrupt = detach_on_interrupt;
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking waitpid returns EINTR and the executor notices
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

bool stop_requested() { return g_stop != 0; }

StopKind requested_stop_kind() {
  if (g_stop == SIGINT && !g_detach_on_interrupt) return StopKind::interrupt;
  return StopKind::terminate;
}

int requested_stop_signal() { return g_stop; }

}  // namespace kforge::scheduler
