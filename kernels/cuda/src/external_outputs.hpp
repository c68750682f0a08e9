#pragma once
// kforge's verification of a kernel kforge did not run (FLA's chunk_kda on the GPU machine, any program's
// output): the cases CudaBackend::verify() checks a candidate on (the family's verification problems with their
// adversarial input classes, then the main problem), their inputs written as raw files for the outside program,
// and the outputs it wrote read back and checked by the family's own reference check, with the same tolerance.
#include <cstdint>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "family.hpp"

namespace kforge::kernels::cuda {

struct ExternalCase {
  std::string name;  // "case-0": its folder under the cases directory
  HostCase host;
  bool main_problem = false;  // checked by sampling, as verify() checks a candidate's main problem
};

// The cases for `main` (family defaults filled in) drawn from `seed`: the same seed gives the same inputs.
std::vector<ExternalCase> external_cases(const CudaFamily& family, const Problem& main, std::uint64_t seed);

// DIR/cases.json (every case: problem, input and output files with their byte counts) and DIR/case-N/input-I.bin,
// the bytes exactly as the kernel receives them (little-endian, the family's layout: kernels/cuda/README.md).
void write_external_inputs(const CudaFamily& family, const std::vector<ExternalCase>& cases, std::uint64_t seed,
                           const std::filesystem::path& dir);

// Reads DIR/case-N/output-I.bin of every case and checks it; writes one JSON object (schema_version, family,
// cases with status ok / wrong_result, errors and evidence, ok true when every case passed). A missing output
// file throws std::runtime_error naming it; a file of the wrong size is that case's wrong_result.
bool check_external_outputs(const CudaFamily& family, const std::vector<ExternalCase>& cases,
                            const std::filesystem::path& dir, std::ostream& json);

}  // namespace kforge::kernels::cuda
