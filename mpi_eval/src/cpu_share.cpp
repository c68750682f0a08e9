#include "cpu_share.hpp"

#include <algorithm>

namespace kforge::mpi_eval {

int cpu_share(const cpu_set_t& mine, std::span<const cpu_set_t> node_masks) {
  double share = 0.0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &mine)) continue;
    int holders = 0;
    for (const cpu_set_t& m : node_masks) holders += CPU_ISSET(cpu, &m) ? 1 : 0;
    share += 1.0 / std::max(holders, 1);
  }
  return std::max(1, static_cast<int>(share + 1e-9));
}

}  // namespace kforge::mpi_eval
