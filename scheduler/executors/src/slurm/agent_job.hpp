#pragma once
// Agent operators as Slurm jobs: a one-task array in the site's agent partition that runs the agent's command
// line in its working directory, watched until it ends or its time limit runs out (then cancelled).
#include "kforge/scheduler/agents/agent_launch.hpp"
#include "kforge/scheduler/config/config.hpp"
#include "kforge/slurm/slurm_client.hpp"

namespace kforge::scheduler::slurm_detail {

// The batch script: cd to the working directory, exec the command with stdout/stderr to the spec's files.
std::string agent_batch_script(const AgentProcessSpec& process);

// Runs one agent process through `client` (which must outlive the call). Never throws for what the job did;
// a submission Slurm refuses is "could not be started" with Slurm's message.
AgentProcessResult run_agent_job(kforge::slurm::SlurmClient& client, const SlurmExecutorSpec& spec,
                                 const std::string& campaign, const AgentProcessSpec& process);

}  // namespace kforge::scheduler::slurm_detail
