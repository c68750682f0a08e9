#pragma once
// A kernel family's template run on the CPU emulation (a FAKE GPU, README.md) as the run stage runs it on a GPU:
// the family's launch configuration, its case's inputs, and outputs poisoned with 0xFF before the launch.
#include <string>
#include <vector>

#include "emulated_module.hpp"
#include "family.hpp"

namespace kforge::kernels::cuda {

// Launches `family`'s kernel of genome g, as `module` holds it, on problem p: inputs from `inputs`, outputs laid out
// (and poisoned with 0xFF, as the run stage does) as `outputs` says. The downloaded outputs.
inline std::vector<Bytes> launch_on(EmulatedModule& module, const CudaFamily& family, const jobs::Genome& g,
                                    const Problem& p, const HostCase& inputs, const HostCase& outputs) {
  std::vector<Bytes> in_bytes = inputs.inputs, out_bytes;
  std::vector<std::uint64_t> in, out;
  for (auto& b : in_bytes) in.push_back(reinterpret_cast<std::uint64_t>(b.data()));
  for (std::size_t bytes : outputs.output_bytes) {
    out_bytes.emplace_back(bytes, std::byte{0xFF});
    out.push_back(reinterpret_cast<std::uint64_t>(out_bytes.back().data()));
  }
  KernelArgs args = outputs.args(in, out);
  module.launch(family.entry_point(), family.launch(g, p), args);
  return out_bytes;
}

// The first verification problem (of `problems`) on which `source`, compiled for the emulation, is not ok: its
// outcome, or an ok outcome when every problem passes. Each case is new inputs from `seed` on, checked in full.
inline CheckOutcome first_failure(const CudaFamily& family, const jobs::Genome& g, const std::string& source,
                                  const std::vector<Problem>& problems, const std::filesystem::path& work_dir,
                                  std::uint64_t seed = 7) {
  EmulatedModule module(source, {}, {family.entry_point()}, work_dir);
  for (const Problem& p : problems) {
    std::mt19937_64 rng(++seed);
    const HostCase c = family.make_case(p, rng, /*full_check=*/true);
    CheckOutcome outcome = c.check(launch_on(module, family, g, p, c, c));
    if (outcome.status != jobs::Status::ok) {
      outcome.evidence = family.name() + " " + g.to_text() + " on " + problem_text(p) + ": " + outcome.evidence;
      return outcome;
    }
  }
  return {};
}

}  // namespace kforge::kernels::cuda
