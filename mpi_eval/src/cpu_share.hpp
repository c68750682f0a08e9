#pragma once
// A rank's share of its node's CPUs (KFORGE_CPUS_PER_RANK, set by kforge-eval for the candidates' children): each
// CPU of the rank's affinity mask counted as 1 / (the ranks on the node whose masks hold it), at least 1. Ranks bound
// to cores of their own (OpenMPI's default for two ranks or fewer; Slurm's --cpus-per-task) keep their whole masks;
// ranks left unbound (mpirun --bind-to none) split the node between them.
#include <sched.h>

#include <span>

namespace kforge::mpi_eval {

int cpu_share(const cpu_set_t& mine, std::span<const cpu_set_t> node_masks);

}  // namespace kforge::mpi_eval
