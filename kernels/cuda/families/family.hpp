#pragma once
// A cuda kernel family: what the backend needs to know about one kind of kernel, independent of NVRTC and of
// the driver. Its parameter space (documented in share/examples/<family>-cuda.yaml), the source template
// rendered from a genome, the launch configuration, FLOP and byte counts, and problem instances with host
// inputs and a host reference check for the run stage.
#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/jobs/genome.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/status.hpp"
#include "kforge/kernels/cuda/cuda_backend.hpp"
#include "kforge/kernels/family_schema.hpp"

namespace kforge::kernels::cuda {

struct LaunchConfig {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  std::int64_t dynamic_shared_bytes = 0;
  std::int64_t threads_per_block() const { return static_cast<std::int64_t>(block[0]) * block[1] * block[2]; }
  std::string text() const;  // "grid (32,32,1) block (128,1,1) dynamic smem 56832 B"
};

using Problem = std::map<std::string, std::int64_t>;  // e.g. M, N, K
std::string problem_text(const Problem& p);           // "K=4096 M=4096 N=4096" ("inputs=huge" by name)

// Adversarial input classes (docs/isolation.md, "Inputs no candidate can count on"): a verification problem
// names one in its "inputs" entry; one without it gets the family's ordinary inputs. gemm: huge, tiny (A and B
// scaled by 2^40 / 2^-40); kda: gate_low (every g = log 0.5, the lower bound), gate_high (g = 0), v_huge,
// v_tiny (v scaled by 2^50 / 2^-50); rmsnorm: zero_rows (every third row all zeros), large_rows (every other
// row scaled by 2^40).
enum class InputClass : std::int64_t {
  ordinary = 0,
  huge,
  tiny,
  gate_low,
  gate_high,
  v_huge,
  v_tiny,
  zero_rows,
  large_rows
};
std::string input_class_name(InputClass c);
InputClass input_class(const Problem& p);  // throws std::invalid_argument for a value that names no class
std::optional<InputClass> input_class_named(std::string_view name);  // "" is ordinary
Problem with_inputs(Problem p, InputClass c);

// Every parameter of a cuda family is an integer; a genome takes one listed value per parameter.
using ParamSpace = std::map<std::string, std::vector<std::int64_t>>;

// Kernel arguments in the layout cuLaunchKernel takes (an array of pointers to each argument's bytes).
class KernelArgs {
 public:
  KernelArgs& pointer(std::uint64_t device_address) { return add(&device_address, sizeof device_address); }
  KernelArgs& i32(std::int32_t v) { return add(&v, sizeof v); }
  KernelArgs& f32(float v) { return add(&v, sizeof v); }
  void** pointers();  // valid while this object lives and no argument is added

 private:
  KernelArgs& add(const void* bytes, std::size_t size);
  std::vector<std::array<std::byte, 8>> storage_;
  std::vector<void*> pointers_;
};

struct CheckOutcome {
  jobs::Status status = jobs::Status::ok;  // ok or wrong_result
  double max_abs_error = 0.0;
  double max_rel_error = 0.0;
  std::string evidence;  // empty when ok: the first wrong element, its value and the expected one
};

using Bytes = std::vector<std::byte>;

// One problem instance: host inputs (uploaded in order), output sizes (allocated and poisoned with 0xFF,
// a NaN in fp32 and bf16), the kernel's arguments given the device addresses, and the reference check.
struct HostCase {
  Problem problem;
  std::vector<Bytes> inputs;
  std::vector<std::size_t> output_bytes;
  std::function<KernelArgs(const std::vector<std::uint64_t>& inputs, const std::vector<std::uint64_t>& outputs)> args;
  // Checks downloaded outputs against the reference: every element, or a random sample when the case was made
  // with full_check = false (a double-precision reference of the whole main problem is too slow on the host).
  std::function<CheckOutcome(const std::vector<Bytes>& outputs)> check;
};

class CudaFamily {
 public:
  virtual ~CudaFamily() = default;
  virtual std::string name() const = 0;
  virtual std::string entry_point() const = 0;  // the extern "C" __global__ function candidates define
  // The family's parameters and their choices, read from its schema (kforge_family_schema, <family>_schema.cpp).
  ParamSpace space() const;
  virtual jobs::Genome default_genome() const = 0;
  // Why a genome cannot be rendered or launched (a missing or out-of-space value, a broken constraint).
  virtual std::optional<std::string> invalid_reason(const jobs::Genome& g) const = 0;
  virtual std::string render(const jobs::Genome& g) const = 0;  // throws std::invalid_argument
  // settings.problem with the family's defaults filled in; throws std::invalid_argument for bad sizes.
  virtual Problem problem(const jobs::EvalSettings& settings) const = 0;
  // Small and edge problems, checked element by element; the main problem is checked by sampling.
  virtual std::vector<Problem> verification_problems(const Problem& main) const = 0;
  virtual LaunchConfig launch(const jobs::Genome& g, const Problem& p) const = 0;
  virtual double flop(const Problem& p) const = 0;
  virtual double bytes(const Problem& p) const = 0;  // compulsory DRAM traffic
  virtual HostCase make_case(const Problem& p, std::mt19937_64& rng, bool full_check) const = 0;
};

// One check of verify(): a problem (with its input class) and the seed its inputs are drawn from.
struct VerificationCase {
  Problem problem;
  std::uint64_t seed = 0;
  bool from_validation_set = false;
};
// The family's verification problems, each with a seed of its own drawn from `seed`, then each case of the
// campaign's validation set (case text, kforge/jobs/validation_case.hpp) that is this family's: the main
// problem's keys, sizes the family accepts, and an input class its verification problems use.
std::vector<VerificationCase> verification_cases(const CudaFamily& family, const Problem& main,
                                                 const std::vector<std::string>& validation_cases, std::uint64_t seed);
// The case as validation-set text: "K=136 M=67 N=200 inputs=huge seed=123".
std::string case_text_of(const VerificationCase& c);

// Throws std::invalid_argument listing the known families.
std::unique_ptr<CudaFamily> make_cuda_family(std::string_view name);

// Shared by the families: throws std::invalid_argument when the genome lacks a parameter, or has a value
// outside `space`; returns the reason instead of throwing from invalid_reason().
std::optional<std::string> outside_space(const ParamSpace& space, const jobs::Genome& g);
// Every combination of the space's values (the whole space of a family, for sweeps and ptxas figures).
std::vector<jobs::Genome> every_genome(const ParamSpace& space);
// The integer parameters of a schema and their choices (a string parameter, the engine's schedule, is not one).
ParamSpace space_of(const FamilySchema& schema);
std::int64_t problem_value(const Problem& p, const std::string& name);  // throws when missing

}  // namespace kforge::kernels::cuda
