// The chunked KDA equations of the kernel template (kda_source.cpp), step by step on the host, against the
// per-token recurrence: without a GPU this is what shows that the kernel's algorithm (not just its syntax) is
// right, including a final partial chunk padded with zeros.
#include <gtest/gtest.h>

#include <cmath>

#include "host_data.hpp"
#include "kda/kda_family.hpp"

namespace kforge::kernels::cuda {
namespace {

constexpr int D = KdaInputs::D;
using Mat = std::vector<double>;

// One head (b = 0), all value columns, chunk size C; the same steps 1-7 as the kernel.
void chunked_head(const KdaInputs& in, int h, int C, Mat& out_o, Mat& S) {
  S.assign(D * D, 0.0);
  out_o.assign(static_cast<std::size_t>(in.T) * D, 0.0);
  const double scale = 1.0 / std::sqrt(double(D));
  for (int t0 = 0; t0 < in.T; t0 += C) {
    Mat q(C * D, 0), k(C * D, 0), G(C * D, 0), v(C * D, 0), beta(C, 0), A(C * C, 0), Bm(C * C, 0), W(C * D), O(C * D);
    for (int i = 0; i < C && t0 + i < in.T; ++i) {  // tokens past T stay zero, as cp.async's zero fill
      const std::size_t row = static_cast<std::size_t>(t0 + i) * in.H + h;
      for (int c = 0; c < D; ++c) {
        q[i * D + c] = in.q[row * D + c] * scale;
        k[i * D + c] = in.k[row * D + c];
        G[i * D + c] = in.g[row * D + c];
        v[i * D + c] = in.v[row * D + c];
      }
      beta[i] = in.beta[row];
    }
    std::vector<double> G_last(D);
    for (int c = 0; c < D; ++c)
      for (int i = 0; i < C; ++i) G_last[c] = (G[i * D + c] += i ? G[(i - 1) * D + c] : 0.0);
    for (int i = 0; i < C; ++i)
      for (int j = 0; j <= i; ++j) {
        double a = 0, b = 0;
        for (int c = 0; c < D; ++c) {
          const double kj = k[j * D + c] * std::exp(G[i * D + c] - G[j * D + c]);
          a += k[i * D + c] * kj;
          b += q[i * D + c] * kj;
        }
        A[i * C + j] = j < i ? a * beta[i] : 0.0;
        Bm[i * C + j] = b;
      }
    Mat qg(C * D), kg(C * D), kd(C * D);
    for (int e = 0; e < C * D; ++e) {
      qg[e] = q[e] * std::exp(G[e]);
      kg[e] = k[e] * std::exp(G[e]);
      kd[e] = k[e] * std::exp(G_last[e % D] - G[e]);
    }
    for (int i = 0; i < C; ++i)
      for (int col = 0; col < D; ++col) {
        double sk = 0, sq = 0;
        for (int c = 0; c < D; ++c) sk += kg[i * D + c] * S[c * D + col], sq += qg[i * D + c] * S[c * D + col];
        W[i * D + col] = beta[i] * (v[i * D + col] - sk);
        O[i * D + col] = sq;
      }
    for (int col = 0; col < D; ++col)
      for (int i = 1; i < C; ++i)
        for (int j = 0; j < i; ++j) W[i * D + col] -= A[i * C + j] * W[j * D + col];
    for (int i = 0; i < C && t0 + i < in.T; ++i)
      for (int col = 0; col < D; ++col) {
        double acc = O[i * D + col];
        for (int j = 0; j <= i; ++j) acc += Bm[i * C + j] * W[j * D + col];
        out_o[static_cast<std::size_t>(t0 + i) * D + col] = acc;
      }
    for (int c = 0; c < D; ++c)
      for (int col = 0; col < D; ++col) {
        double acc = std::exp(G_last[c]) * S[c * D + col];
        for (int j = 0; j < C; ++j) acc += kd[j * D + c] * W[j * D + col];
        S[c * D + col] = acc;
      }
  }
}

TEST(KdaChunkMath, ChunkedFormEqualsTheRecurrenceForEveryChunkSize) {
  const KdaFamily kda;
  std::mt19937_64 rng(7);
  const HostCase hc = kda.make_case({{"B", 1}, {"T", 70}, {"H", 1}}, rng, true);
  KdaInputs in;
  in.B = 1, in.T = 70, in.H = 1;
  in.q = from_bytes<float>(hc.inputs[0]), in.k = from_bytes<float>(hc.inputs[1]),
  in.v = from_bytes<float>(hc.inputs[2]);
  in.g = from_bytes<float>(hc.inputs[3]), in.beta = from_bytes<float>(hc.inputs[4]);
  Mat ref_o, ref_s;
  kda_reference_head(in, 0, 0, ref_o, ref_s);
  double largest = 0;
  for (double x : ref_o) largest = std::max(largest, std::fabs(x));
  ASSERT_GT(largest, 1e-3);  // the output is not trivially zero
  for (int chunk : {16, 32, 64}) {
    Mat o, s;
    chunked_head(in, 0, chunk, o, s);
    double worst_o = 0, worst_s = 0;
    for (std::size_t e = 0; e < o.size(); ++e) worst_o = std::max(worst_o, std::fabs(o[e] - ref_o[e]));
    for (std::size_t e = 0; e < s.size(); ++e) worst_s = std::max(worst_s, std::fabs(s[e] - ref_s[e]));
    EXPECT_LT(worst_o, 1e-9) << "chunk " << chunk;
    EXPECT_LT(worst_s, 1e-9) << "chunk " << chunk;
  }
}

}  // namespace
}  // namespace kforge::kernels::cuda
