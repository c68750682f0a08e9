#pragma once
// Shared by the cuda engine tests: the host engine tests' tiny models and workload, cuda engine genomes and
// candidates, and a backend whose cache lives in the test's scratch folder (emulated_backend.hpp: on the CPU
// emulation).
#include <string>

#include "cuda_engine_backend.hpp"
#include "engine_test_support.hpp"

namespace kforge::kernels::cuda::engine::testing {

using kernels::engine::testing::ScratchDir;
using kernels::engine::testing::tiny_engine_settings;

inline jobs::Genome genome_with(std::initializer_list<std::pair<const char*, std::int64_t>> changes) {
  jobs::Genome g = default_cuda_engine_genome();
  g.params["max_batch"] = std::int64_t{2};
  g.params["prefill_chunk"] = std::int64_t{16};
  for (const auto& [name, value] : changes) g.params[name] = value;
  return g;
}

inline jobs::Candidate candidate(const jobs::Genome& g, std::string source = {}) {
  jobs::Candidate c;
  c.family = "engine";
  c.backend = "cuda";
  c.genome = g;
  c.source = std::move(source);
  jobs::assign_id(c);
  return c;
}

inline jobs::EvalSettings settings(const std::string& architecture) {
  jobs::EvalSettings s = tiny_engine_settings(architecture);
  s.compile_flags = "";
  return s;
}

inline EvalContext context(const jobs::EvalSettings& s, const ScratchDir& scratch, const std::string& target) {
  return EvalContext{&s, scratch.sub("scratch"), 42, target};
}

inline CudaEngineBackend gpu_backend(const ScratchDir& scratch) {
  return CudaEngineBackend(CudaBackendOptions{scratch.sub("cache"), 0});
}

}  // namespace kforge::kernels::cuda::engine::testing
