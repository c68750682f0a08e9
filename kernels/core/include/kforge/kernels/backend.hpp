#pragma once
// The backend interface shared by host, cuda and replay (ARCHITECTURE.md, "Backends").
// compile() runs in the evaluating rank (a trusted toolchain under a timeout); load(), verify() and time()
// run inside the candidate's sandboxed child process, so a candidate can crash only that child.
#include <cstdint>
#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "kforge/jobs/candidate.hpp"
#include "kforge/jobs/manifest.hpp"
#include "kforge/jobs/record.hpp"

namespace kforge::kernels {

// Thrown by a backend when the node, not the candidate, is at fault (no GPU, no driver): the evaluator records
// infra_error, so the candidate is not blamed and the lessons do not learn from it.
class InfrastructureError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Thrown by a backend when the candidate's own process died, hung up or broke the call protocol
// (kernels/host/sandbox/candidate_process.hpp): the evaluator records crash with this text as evidence.
class CandidateFault : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ResourceFigures {
  std::int32_t registers = -1;
  std::int64_t shared_bytes = -1;
  std::int64_t spill_bytes = -1;
};

struct CompileResult {
  bool ok = false;
  jobs::Status status = jobs::Status::compile_error;  // compile_error or resource_reject when !ok
  std::filesystem::path artefact;                     // e.g. the shared object
  std::string log;                                    // compiler output (evidence)
  double compile_ms = 0.0;
  ResourceFigures resources;
  // cuda: the PTX the module was assembled from (NVRTC's output for a CUDA C++ candidate, the candidate itself
  // for a PTX one), kept as evidence in the record so an agent can start from real PTX; "" for other backends.
  std::string ptx;
};

struct VerifyResult {
  jobs::Status status = jobs::Status::wrong_result;  // ok, wrong_result or cheat_detected
  double max_abs_error = jobs::kNaN;
  double max_rel_error = jobs::kNaN;
  std::string evidence;
  std::string failed_case;  // the family's case text of the input/shape that caught it, so it can join the
                            // campaign's validation set ("" when ok or not reproducible)
};

struct TimeResult {
  jobs::Status status = jobs::Status::ok;  // cheat_detected when faster than physically possible; engines: slo_missed
  std::vector<double> samples_ms;
  std::string evidence;
  std::vector<jobs::Metric> metrics;  // engines: serving figures and the per-operator breakdown (EvalRecord.metrics)
};

struct EvalContext {
  const jobs::EvalSettings* settings = nullptr;
  std::filesystem::path scratch;  // the candidate's own scratch folder
  std::uint64_t seed = 0;         // fresh inputs: derived per candidate and run
  std::string target;             // the island's hardware target (manifest.target): "hopper" compiles for sm_90a
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  virtual std::string family() const = 0;

  // The source that is compiled: candidate.source if set, else the family template rendered with the genome.
  // Throws std::invalid_argument when the genome lacks a parameter the template needs.
  virtual std::string render(const jobs::Candidate& c) const = 0;

  virtual CompileResult compile(const std::string& source, const jobs::Candidate& c, const EvalContext& ctx) = 0;

  // In the child: load the artefact, check it against the reference on fresh random inputs, time it.
  virtual void load(const CompileResult& compiled) = 0;  // throws on failure (recorded as crash)
  virtual VerifyResult verify(const EvalContext& ctx) = 0;
  virtual TimeResult time(const EvalContext& ctx) = 0;

  // In a child too: the family's baselines named in settings.baselines, timed in the same run.
  virtual std::vector<jobs::Baseline> time_baselines(const EvalContext& ctx) = 0;

  // What the child that runs this backend needs from the rank (mpi_eval: its sandbox limits and timing lock).
  // Its candidates are timed on the node's CPU cores, which other ranks share: timed under the node's timing lock.
  virtual bool times_on_shared_cores() const { return false; }
  // Its child creates a device context: the driver reserves far more virtual address space than any memory limit,
  // so the child gets no address-space cap, and the backend bounds the device memory a candidate reserves.
  virtual bool creates_device_context() const { return false; }
  // Its candidates' code runs in a confined process of its own that the child starts: the child itself may fork.
  virtual bool runs_candidate_code_apart() const { return false; }
};

// Throws std::invalid_argument listing the known (backend, family) pairs when unknown.
std::unique_ptr<Backend> make_backend(std::string_view backend, std::string_view family);

}  // namespace kforge::kernels
