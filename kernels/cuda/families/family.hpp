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

namespace kforge::kernels::cuda {

struct LaunchConfig {
  std::array<unsigned, 3> grid{1, 1, 1};
  std::array<unsigned, 3> block{1, 1, 1};
  std::int64_t dynamic_shared_bytes = 0;
  std::int64_t threads_per_block() const {
    return static_cast<std::int64_t>(block[0]) * block[1] * block[2];
  }
  std::string text() const;  // "grid (32,32,1) block (128,1,1) dynamic smem 56832 B"
};

using Problem = std::map<std::string, std::int64_t>;  // e.g. M, N, K
std::string problem_text(const Problem& p);            // "K=4096 M=4096 N=4096"

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
  std::function<KernelArgs(const std::vector<std::uint64_t>& inputs, const std::vector<std::uint64_t>& outputs)>
      args;
  // Checks downloaded outputs against the reference: every element, or a random sample when the case was made
  // with full_check = false (a double-precision reference of the whole main problem is too slow on the host).
  std::function<CheckOutcome(const std::vector<Bytes>& outputs)> check;
};

class CudaFamily {
 public:
  virtual ~CudaFamily() = default;
  virtual std::string name() const = 0;
  virtual std::string entry_point() const = 0;  // the extern "C" __global__ function candidates define
  virtual ParamSpace space() const = 0;
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

// Throws std::invalid_argument listing the known families.
std::unique_ptr<CudaFamily> make_cuda_family(std::string_view name);

// Shared by the families: throws std::invalid_argument when the genome lacks a parameter, or has a value
// outside `space`; returns the reason instead of throwing from invalid_reason().
std::optional<std::string> outside_space(const ParamSpace& space, const jobs::Genome& g);
std::int64_t problem_value(const Problem& p, const std::string& name);  // throws when missing

}  // namespace kforge::kernels::cuda
