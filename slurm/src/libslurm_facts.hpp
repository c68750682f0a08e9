#pragma once
// What of libslurm this build has: with_libslurm.cpp when kforge links it (CMake option KFORGE_WITH_LIBSLURM and
// libslurm-dev found), without_libslurm.cpp otherwise. Everything else of slurm/ builds either way: the
// command-line client needs only the tools on PATH at run time.

#include <memory>

#include "kforge/slurm/slurm_client.hpp"

namespace kforge::slurm::detail {

// The libslurm client; throws std::runtime_error in a build without libslurm.
std::unique_ptr<SlurmClient> make_libslurm_client();

}  // namespace kforge::slurm::detail
