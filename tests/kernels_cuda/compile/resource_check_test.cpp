// The resource checks that turn a candidate into resource_reject before it gets GPU time.
#include <gtest/gtest.h>

#include "resource_check.hpp"

namespace kforge::kernels::cuda {
namespace {

LaunchConfig block_of(unsigned threads, std::int64_t dynamic_smem = 0) {
  LaunchConfig l;
  l.block[0] = threads;
  l.dynamic_shared_bytes = dynamic_smem;
  return l;
}

KernelFigures figures(int registers, std::int64_t smem = 0, std::int64_t spills = 0) {
  KernelFigures f;
  f.entry = "k";
  f.registers = registers;
  f.static_shared_bytes = smem;
  f.spill_store_bytes = spills;
  return f;
}

TEST(ArchTable, MapsIslandTargetsToArchitectures) {
  EXPECT_EQ(arch_for_target("hopper").arch, "sm_90a");
  EXPECT_EQ(arch_for_target("blackwell").arch, "sm_100a");
  EXPECT_EQ(arch_for_target("sm_100a").target, "blackwell");
  EXPECT_EQ(arch_for_target("hopper").max_shared_per_block, 227 * 1024);
  try {
    arch_for_target("volta");
    FAIL() << "an unknown target must throw";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("hopper (sm_90a)"), std::string::npos) << e.what();
  }
}

TEST(ResourceCheck, AcceptsAKernelWithinEveryLimit) {
  const ArchSpec& a = arch_for_target("hopper");
  EXPECT_EQ(compiled_rejection(figures(128, 0), block_of(256, 100 * 1024), a, {}), std::nullopt);
}

TEST(ResourceCheck, RejectsMoreThan1024ThreadsBeforeCompiling) {
  const auto why = launch_rejection(block_of(2048), arch_for_target("hopper"));
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("2048 threads"), std::string::npos);
}

TEST(ResourceCheck, RejectsDynamicSharedMemoryOverTheOptInMaximum) {
  EXPECT_TRUE(launch_rejection(block_of(128, 227 * 1024 + 1), arch_for_target("blackwell")).has_value());
  EXPECT_FALSE(launch_rejection(block_of(128, 227 * 1024), arch_for_target("blackwell")).has_value());
}

TEST(ResourceCheck, RejectsStaticPlusDynamicSharedMemoryOverTheMaximum) {
  EXPECT_TRUE(compiled_rejection(figures(32, 40 * 1024), block_of(128, 200 * 1024), arch_for_target("hopper"), {}));
  EXPECT_TRUE(
      compiled_rejection(figures(32, 64 * 1024), block_of(128), arch_for_target("hopper"), {}));  // > 48 KiB static
}

TEST(ResourceCheck, RejectsRegistersTimesThreadsOverTheRegisterFile) {
  const ArchSpec& a = arch_for_target("hopper");
  EXPECT_FALSE(compiled_rejection(figures(64, 0), block_of(1024), a, {}).has_value());  // 65536 exactly
  const auto why = compiled_rejection(figures(65, 0), block_of(1024), a, {});           // allocated as 72
  ASSERT_TRUE(why.has_value());
  EXPECT_NE(why->find("72"), std::string::npos) << *why;
}

TEST(ResourceCheck, RejectsSpillsOverTheCampaignLimit) {
  const ArchSpec& a = arch_for_target("hopper");
  EXPECT_TRUE(compiled_rejection(figures(32, 0, 8), block_of(128), a, ResourceLimits{0}).has_value());
  EXPECT_FALSE(compiled_rejection(figures(32, 0, 8), block_of(128), a, ResourceLimits{64}).has_value());
}

}  // namespace
}  // namespace kforge::kernels::cuda
