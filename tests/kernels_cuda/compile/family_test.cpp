// The families without NVRTC: genomes, rendering, launch configurations, problem sizes, and reference checks
// that pass right outputs and fail wrong ones.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "gemm/gemm_family.hpp"
#include "host_data.hpp"
#include "kda/kda_family.hpp"
#include "rmsnorm/rmsnorm_family.hpp"

namespace kforge::kernels::cuda {
namespace {

TEST(CudaFamilies, EveryDefaultGenomeIsValidAndRendersItsParameters) {
  for (const auto& name : cuda_family_names()) {
    const auto family = make_cuda_family(name);
    const jobs::Genome g = family->default_genome();
    EXPECT_EQ(family->invalid_reason(g), std::nullopt) << name;
    const std::string source = family->render(g);
    for (const auto& [param, value] : g.params)
      EXPECT_NE(source.find("#define " + param + " " + jobs::to_text(value)), std::string::npos)
          << name << " " << param;
    EXPECT_NE(source.find("extern \"C\" __global__"), std::string::npos);
    EXPECT_NE(source.find(family->entry_point()), std::string::npos);
  }
}

TEST(CudaFamilies, UnknownFamilyNamesTheKnownOnes) {
  try {
    make_cuda_family("conv");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("gemm, kda, kda_bf16, kda_bf16_tc, rmsnorm"), std::string::npos);
  }
}

TEST(CudaFamilies, RenderRejectsAGenomeOutsideTheSpace) {
  const GemmFamily gemm;
  jobs::Genome g = gemm.default_genome();
  g.params["BK"] = std::int64_t{48};
  EXPECT_THROW(gemm.render(g), std::invalid_argument);
  g.params.erase("BK");
  EXPECT_THROW(gemm.render(g), std::invalid_argument);
  g = gemm.default_genome();
  g.params["WM"] = std::int64_t{64};
  g.params["BM"] = std::int64_t{64};
  g.params["WN"] = std::int64_t{128};
  EXPECT_NE(gemm.invalid_reason(g), std::nullopt);  // WM * WN > 4096
}

TEST(CudaFamilies, GemmLaunchFollowsTheTilesAndTheProblem) {
  const GemmFamily gemm;
  const LaunchConfig l = gemm.launch(gemm.default_genome(), {{"M", 4096}, {"N", 4096}, {"K", 4096}});
  EXPECT_EQ(l.grid[0], 32u * 32u);
  EXPECT_EQ(l.threads_per_block(), 128);                             // (128/64) x (128/64) warps
  EXPECT_EQ(l.dynamic_shared_bytes, 3 * (128 * 40 + 32 * 136) * 2);  // 3 stages of padded A and B tiles
  EXPECT_DOUBLE_EQ(gemm.flop({{"M", 2}, {"N", 8}, {"K", 8}}), 256.0);
}

TEST(CudaFamilies, KdaSharedMemoryGrowsWithChunkValueTileAndStages) {
  const KdaFamily kda;
  jobs::Genome g = kda.default_genome();
  const Problem p{{"B", 1}, {"T", 8192}, {"H", 32}};
  const LaunchConfig l = kda.launch(g, p);
  EXPECT_EQ(l.grid[0], 2u);
  EXPECT_EQ(l.grid[1], 32u);
  EXPECT_EQ(l.dynamic_shared_bytes,
            4 * (2 * (3 * 32 * 128 + 32 * 64 + 32) + 128 * 64 + 2 * 32 * 32 + 2 * 32 * 64 + 128));
  g.params["STAGES"] = std::int64_t{3};
  g.params["CHUNK"] = std::int64_t{64};
  EXPECT_GT(kda.launch(g, p).dynamic_shared_bytes, 227 * 1024);
}

TEST(CudaFamilies, ProblemSizesAreValidated) {
  jobs::EvalSettings s;
  s.problem = {{"M", 100}, {"N", 100}, {"K", 64}};
  EXPECT_THROW(GemmFamily().problem(s), std::invalid_argument);  // N % 8 != 0
  s.problem = {{"D", 64}};
  EXPECT_THROW(KdaFamily().problem(s), std::invalid_argument);
  s.problem = {{"rows", 10}, {"hidden", 7168}};
  EXPECT_EQ(RmsnormFamily().problem(s).at("rows"), 10);
}

// Outputs computed on the host from the case's own inputs pass; one changed element fails.
TEST(CudaFamilies, GemmCheckPassesRightOutputsAndFailsAWrongElement) {
  const GemmFamily gemm;
  std::mt19937_64 rng(1);
  const HostCase hc = gemm.make_case({{"M", 19}, {"N", 24}, {"K", 40}}, rng, true);
  const auto a = from_bytes<std::uint16_t>(hc.inputs[0]), b = from_bytes<std::uint16_t>(hc.inputs[1]);
  std::vector<float> c(19 * 24);
  for (int i = 0; i < 19; ++i)
    for (int j = 0; j < 24; ++j)
      for (int k = 0; k < 40; ++k) c[i * 24 + j] += bf16_to_float(a[i * 40 + k]) * bf16_to_float(b[k * 24 + j]);
  EXPECT_EQ(hc.check({to_bytes(c)}).status, jobs::Status::ok);
  c[5 * 24 + 7] += 0.5f;
  const CheckOutcome bad = hc.check({to_bytes(c)});
  EXPECT_EQ(bad.status, jobs::Status::wrong_result);
  EXPECT_NE(bad.evidence.find("[5,7]"), std::string::npos) << bad.evidence;
}

TEST(CudaFamilies, RmsnormCheckFailsAnUnwrittenPoisonedRow) {
  const RmsnormFamily norm;
  std::mt19937_64 rng(2);
  const HostCase hc = norm.make_case({{"rows", 3}, {"hidden", 16}}, rng, true);
  const auto x = from_bytes<std::uint16_t>(hc.inputs[0]), w = from_bytes<std::uint16_t>(hc.inputs[1]);
  std::vector<std::uint16_t> y(48);
  for (int r = 0; r < 3; ++r) {
    double sum = 0;
    for (int i = 0; i < 16; ++i) sum += std::pow(bf16_to_float(x[r * 16 + i]), 2);
    for (int i = 0; i < 16; ++i)
      y[r * 16 + i] = float_to_bf16(
          static_cast<float>(bf16_to_float(x[r * 16 + i]) / std::sqrt(sum / 16 + 1e-6) * bf16_to_float(w[i])));
  }
  EXPECT_EQ(hc.check({to_bytes(y)}).status, jobs::Status::ok);
  std::fill(y.begin() + 32, y.end(), std::uint16_t{0xFFFF});  // NaN poison left in the last row
  EXPECT_EQ(hc.check({to_bytes(y)}).status, jobs::Status::wrong_result);
}

TEST(CudaFamilies, KdaCheckAcceptsTheRecurrenceAndRejectsAZeroState) {
  const KdaFamily kda;
  std::mt19937_64 rng(3);
  const HostCase hc = kda.make_case({{"B", 1}, {"T", 5}, {"H", 2}}, rng, true);
  KdaInputs in;
  in.B = 1, in.T = 5, in.H = 2;
  in.q = from_bytes<float>(hc.inputs[0]), in.k = from_bytes<float>(hc.inputs[1]),
  in.v = from_bytes<float>(hc.inputs[2]);
  in.g = from_bytes<float>(hc.inputs[3]), in.beta = from_bytes<float>(hc.inputs[4]);
  std::vector<float> o(5 * 2 * 128), state(2 * 128 * 128);
  for (int h = 0; h < 2; ++h) {
    std::vector<double> ro, rs;
    kda_reference_head(in, 0, h, ro, rs);
    for (int t = 0; t < 5; ++t)
      for (int c = 0; c < 128; ++c) o[(t * 2 + h) * 128 + c] = static_cast<float>(ro[t * 128 + c]);
    for (int e = 0; e < 128 * 128; ++e) state[h * 128 * 128 + e] = static_cast<float>(rs[e]);
  }
  EXPECT_EQ(hc.check({to_bytes(o), to_bytes(state)}).status, jobs::Status::ok);
  // o is about a tenth of v: an absolute tolerance in v's units let every element of o be some percent off. A 1%
  // error in one element of o, or of the state, is caught wherever its magnitude lies in its head's range.
  for (std::vector<float>* out : {&o, &state}) {
    const std::size_t median = out->size() / 2;
    std::vector<float> by_size = *out;
    std::nth_element(by_size.begin(), by_size.begin() + median, by_size.end(),
                     [](float a, float b) { return std::fabs(a) < std::fabs(b); });
    const auto at = std::find(out->begin(), out->end(), by_size[median]) - out->begin();
    const float right = (*out)[at];
    ASSERT_NE(right, 0.f);
    (*out)[at] = right * 1.01f;
    const CheckOutcome wrong = hc.check({to_bytes(o), to_bytes(state)});
    EXPECT_EQ(wrong.status, jobs::Status::wrong_result) << (out == &o ? "o " : "state ") << right;
    (*out)[at] = right;
  }
  std::fill(state.begin(), state.end(), 0.f);
  EXPECT_EQ(hc.check({to_bytes(o), to_bytes(state)}).status, jobs::Status::wrong_result);
}

}  // namespace
}  // namespace kforge::kernels::cuda
