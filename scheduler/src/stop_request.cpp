// SIGTERM / SIGINT ask the driver to stop between two steps instead of dying mid-write.
#include <csignal>

#include "kforge/scheduler/executor.hpp"

namespace kforge::scheduler {
namespace {
volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_stop_signal(int) { g_stop = 1; }
}  // namespace

void install_stop_handlers() {
  struct sigaction sa {};
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = 0;  // no SA_RESTART: a blocking waitpid returns EINTR and the executor notices
  sigaction(SIGTERM, &sa, nullptr);
  sigaction(SIGINT, &sa, nullptr);
}

bool stop_requested() { return g_stop != 0; }

}  // namespace kforge::scheduler
