#pragma once
// Shared by the cuda backend tests: a temporary cache and scratch folder, settings with small problems, and
// candidates built from a genome or from source text.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "cuda_backend.hpp"
#include "kforge/jobs/candidate.hpp"
#include "kforge/test_support/scratch_dir.hpp"

namespace kforge::kernels::cuda::test {

class CudaBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    settings_.compile_flags = "";
    settings_.compile_timeout_s = 120;
  }

  std::unique_ptr<CudaBackend> backend(const std::string& family, std::int64_t max_spill_bytes = 0) {
    return std::make_unique<CudaBackend>(make_cuda_family(family),
                                         CudaBackendOptions{root_ / "cache", max_spill_bytes});
  }
  EvalContext context(const std::string& target) { return EvalContext{&settings_, root_ / "scratch", 42, target}; }
  static jobs::Candidate candidate(const CudaFamily& f, const jobs::Genome& g, const std::string& source = "") {
    jobs::Candidate c;
    c.family = f.name();
    c.backend = "cuda";
    c.genome = g;
    c.source = source;
    jobs::assign_id(c);
    return c;
  }
  CompileResult compile(CudaBackend& b, const jobs::Candidate& c, const std::string& target) {
    return b.compile(b.render(c), c, context(target));
  }
  // A genome drawn from the family's space that is valid and fits the arch's launch limits.
  static jobs::Genome random_genome(const CudaFamily& f, std::mt19937_64& rng) {
    const Problem p = f.problem(jobs::EvalSettings{});
    for (;;) {
      jobs::Genome g;
      for (const auto& [name, values] : f.space()) g.params[name] = values[rng() % values.size()];
      if (!f.invalid_reason(g) && !launch_rejection(f.launch(g, p), arch_for_target("hopper"))) return g;
    }
  }

  test_support::ScratchDir dir_{"cuda-test-" + test_support::current_test_name()};
  const std::filesystem::path root_ = dir_.path();
  jobs::EvalSettings settings_;
};

}  // namespace kforge::kernels::cuda::test
