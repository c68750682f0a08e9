// A rank's share of its node's CPUs (cpu_share.hpp, KFORGE_CPUS_PER_RANK): ranks bound to cores of their own keep
// them, unbound ranks split the node, and a rank always gets at least one.
#include <gtest/gtest.h>

#include <vector>

#include "cpu_share.hpp"

namespace kforge::mpi_eval {
namespace {

cpu_set_t cpus(int from, int to) {
  cpu_set_t s;
  CPU_ZERO(&s);
  for (int c = from; c < to; ++c) CPU_SET(c, &s);
  return s;
}

TEST(CpuShare, RanksBoundToCoresOfTheirOwnKeepThem) {
  const std::vector<cpu_set_t> bound = {cpus(0, 4), cpus(4, 8), cpus(8, 12), cpus(12, 16)};
  for (const cpu_set_t& mine : bound) EXPECT_EQ(cpu_share(mine, bound), 4);
  const std::vector<cpu_set_t> one_core = {cpus(0, 1), cpus(1, 2)};  // OpenMPI's default for two ranks
  EXPECT_EQ(cpu_share(one_core[0], one_core), 1);
}

TEST(CpuShare, UnboundRanksSplitTheNode) {
  const std::vector<cpu_set_t> unbound(2, cpus(0, 16));
  EXPECT_EQ(cpu_share(unbound[0], unbound), 8);
  const std::vector<cpu_set_t> alone = {cpus(0, 16)};  // one rank on a GPU node, --bind-to none
  EXPECT_EQ(cpu_share(alone[0], alone), 16);
  const std::vector<cpu_set_t> overlapping = {cpus(0, 8), cpus(4, 12)};  // 4 of its own, 4 shared
  EXPECT_EQ(cpu_share(overlapping[0], overlapping), 6);
}

TEST(CpuShare, ARankGetsAtLeastOneCpu) {
  const std::vector<cpu_set_t> crowded(3, cpus(0, 2));
  EXPECT_EQ(cpu_share(crowded[0], crowded), 1);
}

}  // namespace
}  // namespace kforge::mpi_eval
