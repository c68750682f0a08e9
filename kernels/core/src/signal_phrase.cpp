#include "kforge/kernels/signal_phrase.hpp"

#include <signal.h>
#include <string.h>

#include <cctype>

namespace kforge::kernels {

std::string signal_phrase(int sig) {
  switch (sig) {
    case SIGXCPU:
      return "exceeded CPU limit (SIGXCPU)";
    case SIGXFSZ:
      return "exceeded file size limit (SIGXFSZ)";
    case SIGKILL:
      return "killed by SIGKILL (hard CPU limit, out-of-memory killer or an outside kill)";
    default:
      break;
  }
  const char* abbrev = ::sigabbrev_np(sig);
  const char* descr = ::sigdescr_np(sig);
  std::string name = abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
  std::string what = descr ? descr : "unknown signal";
  if (!what.empty()) what[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(what[0])));
  return "killed by " + name + " (" + what + ")";
}

}  // namespace kforge::kernels
