#pragma once
// The kda family (Kimi Delta Attention forward) on the host backend (family/host_family_backend.hpp): the kda
// template, its entry point and call layout (kda_call.hpp), the family's problem and checks against the per-token
// recurrence in double (kforge/kernels/kda_problem.hpp) and its baselines, so KDA campaigns also run on CPU nodes.
#include <random>
#include <string>
#include <vector>

#include "kda/kda_baselines.hpp"
#include "kda/kda_call.hpp"
#include "kda/kda_template.hpp"
#include "kforge/kernels/kda_problem.hpp"

namespace kforge::kernels::host {

struct KdaHostFamily {
  using Shape = kda::Shape;
  using Operands = kda::Inputs;
  static constexpr const char* kName = "kda";
  static constexpr const char* kEntryPoint = kda::kEntryPoint;
  static constexpr Invoke invoke = &invoke_kda;

  static std::string render(const jobs::Genome& genome) { return render_kda_source(kda_params_from_genome(genome)); }
  static Shape main_shape(const jobs::EvalSettings& s) { return kda::main_shape(s); }
  static std::vector<Shape> verification_shapes(const Shape& main) { return kda::verification_shapes(main); }
  static double flop(const Shape& shape) { return shape.flop(); }
  static Operands fresh_operands(const Shape& shape, std::mt19937_64& rng) { return kda::random_inputs(shape, rng); }
  static void refresh(Operands& in, std::mt19937_64& rng) { in = kda::random_inputs(in.shape, rng); }
  static void stage(CandidateProcess& process, Operands& in) { process.stage(kda_args(in.shape), kda_buffers(in)); }
  static void collect(CandidateProcess& process, Operands& in) { process.collect(kda_buffers(in)); }
  static std::string spot_check(const Operands& in, std::mt19937_64& rng) { return kda::spot_check(in, rng); }
  static kda::CheckOutcome check(CandidateProcess& process, const Shape& shape, std::mt19937_64& rng) {
    return kda::check_kernel([&](Operands& in) { process.call(kda_args(in.shape), kda_buffers(in)); }, shape, rng);
  }
  static void* baseline(const std::string& name) { return reinterpret_cast<void*>(kda_baseline(name)); }
};

}  // namespace kforge::kernels::host
