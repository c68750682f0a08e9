#pragma once
// A cuda engine backend on the FAKE GPU: every module emulated on the CPU (tests/kernels_cuda/emulator/), and the
// checks the emulated engine tests make with it.
#include <gtest/gtest.h>

#include <string>

#include "cuda_engine_source.hpp"
#include "cuda_engine_test_support.hpp"
#include "emulated_engine_device.hpp"

namespace kforge::kernels::cuda::engine::testing {

inline CudaEngineBackend emulated_backend(const ScratchDir& scratch) {
  return CudaEngineBackend(CudaBackendOptions{scratch.sub("cache"), 0}, emulated_devices(scratch.sub("emulated")));
}

// llama at sizes that are no multiple of any tile: hidden 72 (a slice of 8 of a 16- or 32-deep K), head_dim 18 (a
// partial 16-deep step of q k, a partial 8-column tile of O), mlp 100 and vocab 250 (partial tiles of N).
inline jobs::EvalSettings edge_settings() {
  jobs::EvalSettings s = settings("llama");
  s.engine.model.hidden = 72;
  s.engine.model.head_dim = 18;
  s.engine.model.mlp_hidden = 100;
  s.engine.model.vocab = 250;
  return s;
}

// What verify() and then time() (when verified) of genome g's template module say on the emulation.
struct Served {
  VerifyResult verified;
  TimeResult timed;
};

inline Served verify_and_time(const jobs::EvalSettings& s, const jobs::Genome& g) {
  ScratchDir scratch;
  CudaEngineBackend b = emulated_backend(scratch);
  const EvalContext ctx = context(s, scratch, "hopper");
  const jobs::Candidate c = candidate(g);
  const CompileResult compiled = b.compile(b.render(c), c, ctx);
  EXPECT_TRUE(compiled.ok) << compiled.log;
  if (!compiled.ok) return {};
  b.load(compiled);
  Served out;
  out.verified = b.verify(ctx);
  if (out.verified.status == jobs::Status::ok) out.timed = b.time(ctx);
  return out;
}

inline void expect_correct(const jobs::EvalSettings& s, const jobs::Genome& g) {
  const Served r = verify_and_time(s, g);
  ASSERT_EQ(r.verified.status, jobs::Status::ok) << g.to_text() << "\n"
                                                 << r.verified.evidence << " " << r.verified.failed_case;
  EXPECT_LT(r.verified.max_rel_error, 1e-5) << g.to_text();  // fp32 against double: far inside the 1e-4 tolerance
  EXPECT_EQ(r.timed.status, jobs::Status::ok) << r.timed.evidence;
  EXPECT_FALSE(r.timed.samples_ms.empty());
}

// The status of verifying genome g's module with `from` replaced by `to`, on the emulation, on llama unless `s` says
// otherwise (a hostile or mistaken variant of a kernel the genome renders).
inline jobs::Status verified_with_edit(const jobs::Genome& g, const std::string& from, const std::string& to,
                                       const jobs::EvalSettings& s = settings("llama")) {
  std::string source = render_cuda_engine_source(cuda_engine_params(g));
  const auto at = source.find(from);
  if (at == std::string::npos) {
    ADD_FAILURE() << "the module has no " << from;
    return jobs::Status::infra_error;
  }
  source.replace(at, from.size(), to);
  ScratchDir scratch;
  CudaEngineBackend b = emulated_backend(scratch);
  const EvalContext ctx = context(s, scratch, "hopper");
  const jobs::Candidate c = candidate(g, source);
  const CompileResult compiled = b.compile(b.render(c), c, ctx);
  if (!compiled.ok) {
    ADD_FAILURE() << compiled.log;
    return compiled.status;
  }
  b.load(compiled);
  return b.verify(ctx).status;
}

}  // namespace kforge::kernels::cuda::engine::testing
