// ptxas's verbose report, as NVRTC 13 returns it with -Xptxas=-v, parsed into per-entry figures.
#include <gtest/gtest.h>

#include "ptxas_log.hpp"

namespace kforge::kernels::cuda {
namespace {

constexpr const char* kLog =
    "ptxas info    : 0 bytes gmem\n"
    "ptxas info    : Function properties for helper\n"
    "ptxas         .     64 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
    "ptxas info    : Compiling entry function 'kforge_gemm' for 'sm_90a'\n"
    "ptxas info    : Function properties for kforge_gemm\n"
    "ptxas         .     272 bytes stack frame, 488 bytes spill stores, 492 bytes spill loads\n"
    "ptxas info    : Used 32 registers, used 1 barriers, 272 bytes cumulative stack size, 4096 bytes smem\n"
    "ptxas info    : Compile time = 34.699 ms\n"
    "ptxas info    : Compiling entry function 'other' for 'sm_90a'\n"
    "ptxas info    : Function properties for other\n"
    "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
    "ptxas info    : Used 10 registers, used 0 barriers\n";

TEST(PtxasLog, ReadsRegistersSharedMemoryAndSpillsOfEachEntry) {
  const auto all = parse_ptxas_figures(kLog);
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].entry, "kforge_gemm");
  EXPECT_EQ(all[0].registers, 32);
  EXPECT_EQ(all[0].static_shared_bytes, 4096);
  EXPECT_EQ(all[0].stack_frame_bytes, 272);
  EXPECT_EQ(all[0].spill_store_bytes, 488);
  EXPECT_EQ(all[0].spill_load_bytes, 492);
  EXPECT_EQ(all[1].registers, 10);
  EXPECT_EQ(all[1].static_shared_bytes, 0);  // no "bytes smem" part: none
}

TEST(PtxasLog, IgnoresPropertiesOfNonEntryFunctions) {
  const auto other = figures_for_entry(kLog, "other");
  ASSERT_TRUE(other.has_value());
  EXPECT_EQ(other->spill_store_bytes, 0);
  EXPECT_EQ(other->stack_frame_bytes, 0);
}

TEST(PtxasLog, UnknownEntryOrCompilerErrorGivesNoFigures) {
  EXPECT_FALSE(figures_for_entry(kLog, "missing").has_value());
  EXPECT_FALSE(figures_for_entry("candidate.cu(3): error: identifier \"x\" is undefined\n", "kforge_gemm").has_value());
}

}  // namespace
}  // namespace kforge::kernels::cuda
