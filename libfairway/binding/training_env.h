// The environment torch.distributed's env:// (and most launchers) read, computed per rank from
// what Slurm knows about the step, so `srun python train.py` needs no torchrun.
#pragma once

#include "binding/plugin_config.h"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fairway::binding {

struct RankIdentity {
    std::uint32_t job_id = 0;
    std::uint32_t step_id = 0;
    std::uint64_t port_key = 0;  // the step's MASTER_PORT key (below), the same on every rank
    std::uint32_t global_rank = 0;
    std::uint32_t local_rank = 0;
    std::uint32_t world_size = 1;
    std::uint32_t local_world_size = 1;
    std::uint32_t node_rank = 0;
    std::string step_nodelist;  // hostlist expression of the step's nodes, first = MASTER_ADDR
};

using EnvList = std::vector<std::pair<std::string, std::string>>;

// MASTER_PORT is where rank 0's torch TCPStore listens, unauthenticated: another user of the
// first node who knew the port could bind it first and serve the store. So it is not derived
// from the public job and step ids alone but from a random key that srun draws for each launch
// and hands to every slurmstepd of the step in the step's environment, which only the job's
// owner (and root) can read. Every rank computes the same port without talking; other users
// cannot compute it before it is bound. Spread over the range, so concurrent steps rarely collide.
int master_port(const PortRange& range, std::uint64_t port_key, std::uint32_t job_id, std::uint32_t step_id);

// Where srun puts the key: the step sees it as SLURM_SPANK_FAIRWAY_MASTER_PORT_KEY.
inline constexpr const char* kMasterPortKeyVar = "FAIRWAY_MASTER_PORT_KEY";

// The key as srun carries it: exactly 16 lowercase hex digits.
std::string format_port_key(std::uint64_t key);
// nullopt unless `text` is what format_port_key writes (the user controls srun's environment).
std::optional<std::uint64_t> parse_port_key(std::string_view text);

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
