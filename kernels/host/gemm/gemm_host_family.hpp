#pragma once
// The gemm family on the host backend (family/host_family_backend.hpp): the gemm template, its entry point and
// call layout (gemm_call.hpp), the family's problem and checks (kforge/kernels/gemm_problem.hpp) and its baselines.
#include <random>
#include <string>
#include <vector>

#include "gemm/gemm_baselines.hpp"
#include "gemm/gemm_call.hpp"
#include "gemm/gemm_template.hpp"
#include "kforge/kernels/gemm_problem.hpp"

namespace kforge::kernels::host {

struct GemmHostFamily {
  using Shape = gemm::Shape;
  using Operands = gemm::Operands;
  static constexpr const char* kName = "gemm";
  static constexpr const char* kEntryPoint = gemm::kEntryPoint;
  static constexpr Invoke invoke = &invoke_gemm;
  static constexpr int kSpotChecksPerSample = 16;

  static std::string render(const jobs::Genome& genome) { return render_gemm_source(gemm_params_from_genome(genome)); }
  static Shape main_shape(const jobs::EvalSettings& s) { return gemm::main_shape(s); }
  static std::vector<Shape> verification_shapes(const Shape& main) { return gemm::verification_shapes(main); }
  static double flop(const Shape& shape) { return shape.flop(); }
  static Operands fresh_operands(const Shape& shape, std::mt19937_64& rng) { return gemm::random_operands(shape, rng); }
  static void refresh(Operands& ops, std::mt19937_64& rng) {
    ops.refill(rng);
    ops.poison_c();
  }
  static void stage(CandidateProcess& process, Operands& ops) {
    process.stage(gemm_args(ops.shape), gemm_buffers(ops));
  }
  static void collect(CandidateProcess& process, Operands& ops) { process.collect(gemm_buffers(ops)); }
  static std::string spot_check(const Operands& ops, std::mt19937_64& rng) {
    return gemm::spot_check(ops, rng, kSpotChecksPerSample);
  }
  static gemm::CheckOutcome check(CandidateProcess& process, const Shape& shape, std::mt19937_64& rng) {
    return gemm::check_kernel([&](Operands& ops) { process.call(gemm_args(ops.shape), gemm_buffers(ops)); }, shape,
                              rng);
  }
  static void* baseline(const std::string& name) { return reinterpret_cast<void*>(gemm_baseline(name)); }
};

}  // namespace kforge::kernels::host
