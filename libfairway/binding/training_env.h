// The environment torch.distributed's env:// (and most launchers) read, computed per rank from
// what Slurm knows about the step, so `srun python train.py` needs no torchrun.
#pragma once

#include "binding/plugin_config.h"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace fairway::binding {

struct RankIdentity {
    std::uint32_t job_id = 0;
    std::uint32_t step_id = 0;
    std::uint32_t global_rank = 0;
    std::uint32_t local_rank = 0;
    std::uint32_t world_size = 1;
    std::uint32_t local_world_size = 1;
    std::uint32_t node_rank = 0;
    std::string step_nodelist;  // hostlist expression of the step's nodes, first = MASTER_ADDR
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

// Deterministic per job step and spread over the range, so concurrent steps of one node
// rarely collide and every rank of a step computes the same port without talking.
int master_port(const PortRange& range, std::uint32_t job_id, std::uint32_t step_id);

// What every rank of the step on one node shares: WORLD_SIZE, LOCAL_WORLD_SIZE, NODE_RANK,
// MASTER_ADDR, MASTER_PORT (global_rank and local_rank are not read). The SPANK plugin sets these
// once per step and node rather than per rank: each variable slurmstepd sets costs a zeroed
// 256 KiB buffer (Slurm's setenvf), in every task. Throws fairway::InputError when the nodelist
// is malformed.
EnvList node_training_env(const RankIdentity& rank, const PortRange& ports);

// Each rank's own: RANK, LOCAL_RANK.
EnvList rank_training_env(const RankIdentity& rank);

// RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE, NODE_RANK, MASTER_ADDR, MASTER_PORT: both of the above.
EnvList training_env(const RankIdentity& rank, const PortRange& ports);

}  // namespace fairway::binding
