// A variable-length KDA batch (problem key varlen: 1) on the host: the packed layout that FLA's cu_seqlens
// uses, a reference that treats each sequence on its own, and a check that fails a kernel which reads the
// batch as B sequences of T tokens each (ignoring cu_seqlens) or lets one sequence's state run into the next.
#include <gtest/gtest.h>

#include "host_data.hpp"
#include "kda/kda_family.hpp"

namespace kforge::kernels::cuda {
namespace {

constexpr int D = KdaInputs::D;

KdaInputs inputs_of(const HostCase& hc, int B, int T, int H) {
  KdaInputs in;
  in.B = B, in.T = T, in.H = H;
  in.q = from_bytes<float>(hc.inputs[0]), in.k = from_bytes<float>(hc.inputs[1]),
  in.v = from_bytes<float>(hc.inputs[2]);
  in.g = from_bytes<float>(hc.inputs[3]), in.beta = from_bytes<float>(hc.inputs[4]);
  return in;
}

// What a kernel produces when its reference reads `in` with the given sequence starts: packed o and states.
void outputs_for(const KdaInputs& in, std::vector<float>& o, std::vector<float>& state) {
  o.assign(in.q.size(), 0.f);
  state.assign(static_cast<std::size_t>(in.B) * in.H * D * D, 0.f);
  for (int b = 0; b < in.B; ++b)
    for (int h = 0; h < in.H; ++h) {
      std::vector<double> ro, rs;
      kda_reference_head(in, b, h, ro, rs);
      for (int t = 0; t < in.length(b); ++t)
        for (int c = 0; c < D; ++c)
          o[((static_cast<std::size_t>(in.start(b)) + t) * in.H + h) * D + c] = static_cast<float>(ro[t * D + c]);
      for (int e = 0; e < D * D; ++e)
        state[(static_cast<std::size_t>(b) * in.H + h) * D * D + e] = static_cast<float>(rs[e]);
    }
}

TEST(KdaVarlen, SequenceStartsHaveTheWorkOfTheEqualBatchAndGrowFromOneToken) {
  EXPECT_EQ(kda_sequence_starts(3, 90, false), (std::vector<int>{0, 90, 180, 270}));
  EXPECT_EQ(kda_sequence_starts(3, 90, true), (std::vector<int>{0, 1, 91, 270}));
  EXPECT_EQ(kda_sequence_starts(1, 37, true), (std::vector<int>{0, 37}));
  EXPECT_EQ(kda_sequence_starts(4, 1, true), (std::vector<int>{0, 1, 2, 3, 4}));  // no empty sequence
  const std::vector<int> s = kda_sequence_starts(64, 8192, true);
  EXPECT_EQ(s.back(), 64 * 8192);
  for (std::size_t b = 1; b < s.size(); ++b) EXPECT_GT(s[b], s[b - 1]) << b;
  EXPECT_EQ(s[1], 1);
}

TEST(KdaVarlen, PackedBatchCarriesItsStartsAndIsCheckedSequenceBySequence) {
  const KdaFamily kda;
  std::mt19937_64 rng(11);
  const HostCase hc = kda.make_case({{"B", 3}, {"T", 90}, {"H", 2}, {"varlen", 1}}, rng, true);
  ASSERT_EQ(hc.inputs.size(), 6u);  // q k v g beta cu_seqlens
  EXPECT_EQ(from_bytes<int>(hc.inputs[5]), (std::vector<int>{0, 1, 91, 270}));
  EXPECT_EQ(hc.inputs[0].size(), std::size_t{270} * 2 * D * sizeof(float));

  // The reference of each sequence computed as its own one-sequence problem: packed, it must pass.
  KdaInputs packed = inputs_of(hc, 3, 90, 2);
  packed.starts = from_bytes<int>(hc.inputs[5]);
  std::vector<float> o(packed.q.size()), state(std::size_t{3} * 2 * D * D);
  for (int b = 0; b < 3; ++b) {
    KdaInputs one;
    one.B = 1, one.T = packed.length(b), one.H = 2;
    const std::size_t from = static_cast<std::size_t>(packed.start(b)) * 2, rows = static_cast<std::size_t>(one.T) * 2;
    auto slice = [&](const std::vector<float>& x, std::size_t width) {
      return std::vector<float>(x.begin() + from * width, x.begin() + (from + rows) * width);
    };
    one.q = slice(packed.q, D), one.k = slice(packed.k, D), one.v = slice(packed.v, D), one.g = slice(packed.g, D);
    one.beta = slice(packed.beta, 1);
    std::vector<float> one_o, one_state;
    outputs_for(one, one_o, one_state);
    std::copy(one_o.begin(), one_o.end(), o.begin() + from * D);
    std::copy(one_state.begin(), one_state.end(), state.begin() + static_cast<std::size_t>(b) * 2 * D * D);
  }
  EXPECT_EQ(hc.check({to_bytes(o), to_bytes(state)}).status, jobs::Status::ok);

  // A kernel that ignores cu_seqlens and reads three sequences of 90 tokens.
  KdaInputs equal = packed;
  equal.starts.clear();
  std::vector<float> wrong_o, wrong_state;
  outputs_for(equal, wrong_o, wrong_state);
  const CheckOutcome ignored = hc.check({to_bytes(wrong_o), to_bytes(wrong_state)});
  EXPECT_EQ(ignored.status, jobs::Status::wrong_result);
  EXPECT_NE(ignored.evidence.find("varlen"), std::string::npos) << ignored.evidence;

  // A kernel that carries the state across sequences: one sequence of all 270 tokens.
  KdaInputs run_on = packed;
  run_on.starts = {0, 270};
  run_on.B = 1;
  std::vector<float> joined_o, joined_state;
  outputs_for(run_on, joined_o, joined_state);
  joined_state.resize(state.size(), 0.f);
  EXPECT_EQ(hc.check({to_bytes(joined_o), to_bytes(joined_state)}).status, jobs::Status::wrong_result);
}

}  // namespace
}  // namespace kforge::kernels::cuda
